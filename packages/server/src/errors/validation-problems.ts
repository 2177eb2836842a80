import type { FieldProblem } from './domain-errors.ts';

/** One problem a schema found, as Fastify's validators (TypeBox, ajv) report them. */
export interface SchemaIssue {
  keyword?: string;
  instancePath?: string;
  schemaPath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * Every schema violation of a part of a request (`body`, `querystring`, ...), one problem per
 * field (DESIGN.md: list them all), in words a client developer understands: unknown fields are
 * named, enums list their values, and for a union the alternative the value matched by type
 * explains best: its deeper or non-type problems, else the types the field may take ("must be
 * string or null").
 */
export function validationProblems(context: string, issues: readonly SchemaIssue[]): FieldProblem[] {
  const unions = issues.filter((i) => i.keyword === 'anyOf' || i.keyword === 'oneOf');
  const inUnion = (i: SchemaIssue, u: SchemaIssue) =>
    i !== u && (i.schemaPath ?? '').startsWith(`${u.schemaPath}/${u.keyword}/`);
  const problems = new Map<string, string>();
  const add = (path: string, message: string) => {
    const field = `${context}${path}`;
    if (!problems.has(field)) problems.set(field, message);
  };
  const say = (i: SchemaIssue) => {
    const path = i.instancePath ?? '';
    if (i.keyword === 'additionalProperties') return; // named by its `boolean` issue below
    if (i.keyword === 'required') {
      const missing = i.params?.requiredProperties ?? i.params?.missingProperty ?? [];
      for (const name of [missing].flat()) add(`${path}/${String(name)}`, 'is required');
    } else if (i.keyword === 'boolean' && i.schemaPath?.endsWith('/additionalProperties')) {
      add(path, 'is not a known field');
    } else if (i.keyword === 'enum' && Array.isArray(i.params?.allowedValues)) {
      add(path, `must be one of: ${(i.params.allowedValues as unknown[]).join(', ')}`);
    } else {
      add(path, i.message ?? 'is invalid');
    }
  };
  for (const i of issues) {
    if (!unions.includes(i) && !unions.some((u) => inUnion(i, u))) say(i);
  }
  for (const u of unions) {
    if (unions.some((outer) => inUnion(u, outer))) continue;
    const all = issues.filter((i) => inUnion(i, u) && !unions.includes(i));
    // A union tagged by `type` (data sources) first; else any other tag (`kind` of a chat brain).
    const byType = matchingBranches(u, all);
    const branches = byType !== all ? byType : taggedBranches(u, all);
    const depth = (u.instancePath ?? '').length;
    const deeper = branches.filter((i) => (i.instancePath ?? '').length > depth);
    const best = deeper.length > 0 ? deeper : branches.filter((i) => i.keyword !== 'type');
    if (best.length > 0) best.forEach(say);
    else if (branches.length > 0)
      add(
        u.instancePath ?? '',
        `must be ${[...new Set(branches.map((b) => String(b.params?.type)))].join(' or ')}`,
      );
    else add(u.instancePath ?? '', u.message ?? 'is invalid');
  }
  return [...problems].map(([field, message]) => ({ field, message }));
}

/** The problems in one sentence, for transports without a field list (SCIM, Cube). */
export function describeProblems(problems: readonly FieldProblem[]): string {
  if (problems.length === 0) return 'The request is invalid';
  return `The request is invalid: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`;
}

/**
 * A union of objects told apart by a literal `type` (the data-source kinds): the problems of the
 * members whose `type` matched, not the other members' complaints about fields they do not have.
 * When no member's `type` matched, its problem is the one said.
 */
/**
 * A tagged union (`kind: 'builtin' | 'openai'`): the alternatives whose tag the value does not
 * carry (a `const` problem right under the union) explain nothing; the one it names does.
 */
function taggedBranches(u: SchemaIssue, all: SchemaIssue[]): SchemaIssue[] {
  const prefix = `${u.schemaPath}/${u.keyword}/`;
  const branchOf = (i: SchemaIssue) => (i.schemaPath ?? '').slice(prefix.length).split('/')[0];
  const depthOf = (i: SchemaIssue) => (i.instancePath ?? '').split('/').length;
  const untagged = new Set(
    all.filter((i) => i.keyword === 'const' && depthOf(i) === depthOf(u) + 1).map(branchOf),
  );
  const tagged = all.filter((i) => !untagged.has(branchOf(i)));
  // Only a branch the value's shape matched (its problems lie deeper than the union) is the one
  // the tag names; when the rest fail on the value's type alone, the `const` was a field's own
  // problem (`responseFormat: "x"` in a data query), not a tag.
  const deeper = tagged.some((i) => depthOf(i) > depthOf(u));
  return deeper ? tagged : all;
}

function matchingBranches(u: SchemaIssue, branches: SchemaIssue[]): SchemaIssue[] {
  const prefix = `${u.schemaPath}/${u.keyword}/`;
  const member = (i: SchemaIssue) => (i.schemaPath ?? '').slice(prefix.length).split('/')[0];
  const discriminator = `${u.instancePath ?? ''}/type`;
  const mismatched = new Set(
    branches.filter((i) => i.keyword === 'const' && i.instancePath === discriminator).map(member),
  );
  const all = new Set(branches.map(member));
  // no `type` at all: that is the problem, not the fields no member knows without it
  const missing = branches.find(
    (i) =>
      i.keyword === 'required' &&
      (i.instancePath ?? '') === (u.instancePath ?? '') &&
      [i.params?.requiredProperties ?? i.params?.missingProperty].flat().includes('type'),
  );
  if (
    missing &&
    all.size > 1 &&
    branches.every((i) => i.keyword !== 'const' || i.instancePath !== discriminator)
  )
    return [{ ...missing, params: { requiredProperties: ['type'] } }];
  if (mismatched.size === 0) return branches;
  if (mismatched.size === all.size) {
    const allowed = branches
      .filter((i) => i.keyword === 'const' && i.instancePath === discriminator)
      .map((i) => String(i.params?.allowedValue ?? i.params?.const ?? ''));
    return [
      {
        instancePath: discriminator,
        keyword: 'enum',
        message: 'is not a known type',
        params: { allowedValues: allowed },
      },
    ];
  }
  return branches.filter((i) => !mismatched.has(member(i)));
}
