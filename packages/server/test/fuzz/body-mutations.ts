import fc from 'fast-check';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import {
  anyTypeValues,
  awkwardText,
  deepValue,
  Huge,
  hugeString,
  materialize,
  unstorableText,
} from './hostile-values.ts';
import { type JsonSchema, pointerSegment, schemaAt, typesOf } from './json-schema-arbitrary.ts';

export const check = (schema: JsonSchema, value: unknown) => Value.Check(schema as TSchema, value);

/** One change to a valid body, and the field a refusal must name. */
export interface BodyMutation {
  note: string;
  body: unknown;
  /** The field the change touched, as the server names it (`body/files/0/path`). */
  field: string;
  /** Refused by the input screening whatever the schema says (U+0000, lone surrogates). */
  unstorable?: boolean;
}

interface Site {
  path: string[];
  schema: JsonSchema;
  value: unknown;
  present: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const jsonType = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v;

/** The branch of a union that a value takes (by JSON type), or the schema itself. */
function branchFor(schema: JsonSchema, value: unknown): JsonSchema {
  if (!schema.anyOf) return schema;
  const type = jsonType(value);
  const branch = schema.anyOf.find((b) => {
    const types = typesOf(b);
    return types.includes(type) || (type === 'number' && types.includes('integer'));
  });
  return branch ? branchFor(branch, value) : schema;
}

/** Every place of `value` with its schema, plus the optional properties it leaves out. */
function sitesOf(schema: JsonSchema, value: unknown, path: string[] = []): Site[] {
  const sites: Site[] = [{ path, schema, value, present: true }];
  const branch = branchFor(schema, value);
  if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const child = schemaAt(branch, [key]);
      if (child) sites.push(...sitesOf(child, item, [...path, key]));
    }
    for (const [key, child] of Object.entries(branch.properties ?? {}))
      if (!(key in value))
        sites.push({ path: [...path, key], schema: child, value: undefined, present: false });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      sites.push(...sitesOf(branch.items ?? {}, item, [...path, String(i)]));
    });
  }
  return sites;
}

function setAt(root: unknown, path: string[], value: unknown, remove = false): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = path.at(-1)!;
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

const fieldOf = (path: string[]) => `body${path.map(pointerSegment).join('')}`;

const unknownKey = fc
  .stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,15}$/)
  .filter((k) => !['__proto__', 'constructor', 'prototype'].includes(k));

function numericEdges(schema: JsonSchema): number[] {
  const integer = typesOf(schema).includes('integer');
  const edges = [-1e12, 1e12, 0.5, -0.5, 1e308, -1e308];
  if (schema.minimum !== undefined) edges.push(schema.minimum - 1, schema.minimum - 1e12);
  if (schema.maximum !== undefined) edges.push(schema.maximum + 1, schema.maximum + 1e12);
  if (integer) edges.push(1.5);
  return edges;
}

/** Changes at one site: each an arbitrary of mutations (empty when the kind does not apply). */
function mutationsAt(site: Site, root: unknown): fc.Arbitrary<BodyMutation>[] {
  const { path, schema } = site;
  const branch = branchFor(schema, site.value);
  const field = fieldOf(path);
  const replace = (note: string, values: fc.Arbitrary<unknown>) =>
    values.map((v): BodyMutation => ({ note, body: setAt(root, path, v), field }));
  const refused = (candidates: unknown[]) => candidates.filter((c) => !check(schema, materialize(c)));
  const out: fc.Arbitrary<BodyMutation>[] = [];

  const wrong = refused(anyTypeValues);
  if (wrong.length > 0) out.push(replace('wrong type', fc.constantFrom(...wrong)));
  const types = typesOf(schema);
  if (types.includes('integer') || types.includes('number')) {
    const edges = refused(numericEdges(branch));
    if (edges.length > 0) out.push(replace('out of range', fc.constantFrom(...edges)));
  }
  if (types.includes('string')) {
    const lengths: unknown[] = [];
    if (branch.maxLength !== undefined)
      lengths.push(
        branch.maxLength >= 1000 ? new Huge(branch.maxLength + 1) : 'x'.repeat(branch.maxLength + 1),
      );
    if ((branch.minLength ?? 0) > 0) lengths.push('x'.repeat(branch.minLength! - 1));
    const enumMiss = refused(['no-such-value', 'NO-SUCH-VALUE']);
    const patternMiss = branch.pattern ? refused(['', ' ', 'has space', '../x', 'ünï', '\t', '-', '//']) : [];
    const bad = [...refused(lengths), ...enumMiss, ...patternMiss];
    if (bad.length > 0) out.push(replace('bad string', fc.constantFrom(...bad)));
    out.push(replace('huge string', hugeString), replace('awkward text', awkwardText));
    if (typeof site.value === 'string') {
      const original = site.value;
      out.push(
        unstorableText.map((bad) => ({
          note: 'unstorable text',
          body: setAt(root, path, `${original}${bad}`),
          field,
          unstorable: true,
        })),
      );
    }
  }
  out.push(
    unstorableText.map((bad) => ({
      note: 'unstorable value',
      body: setAt(root, path, bad),
      field,
      unstorable: true,
    })),
    replace('deeply nested value', deepValue),
  );
  if (
    branch.maxItems !== undefined &&
    branch.maxItems <= 1000 &&
    Array.isArray(site.value) &&
    site.value.length > 0
  )
    out.push(replace('too many items', fc.constant(Array(branch.maxItems + 1).fill(site.value[0]))));
  if ((branch.minItems ?? 0) > 0) out.push(replace('too few items', fc.constant([])));

  if (isObject(site.value)) {
    const value = site.value;
    const required = (branch.required ?? []).filter((k) => k in value);
    if (required.length > 0)
      out.push(
        fc.constantFrom(...required).map((key) => ({
          note: 'missing required field',
          body: setAt(root, [...path, key], undefined, true),
          field: fieldOf([...path, key]),
        })),
      );
    if (branch.additionalProperties === false && !branch.patternProperties)
      out.push(
        unknownKey
          .filter((k) => !(k in (branch.properties ?? {})))
          .map((key) => ({
            note: 'unknown field',
            body: setAt(root, [...path, key], 'surprise'),
            field: fieldOf([...path, key]),
          })),
      );
    out.push(
      unstorableText.map((bad) => ({
        note: 'unstorable key',
        body: setAt(root, [...path, `k${bad}`], 1),
        field,
        unstorable: true,
      })),
    );
  }
  return out;
}

/**
 * Mutations of a valid body (the route's sample): at every field and every optional field the
 * schema names, wrong types, out-of-range numbers, too long or short strings, enum and pattern
 * misses, missing required and unknown fields, text the store cannot hold (in values and keys),
 * huge strings, awkward text and deep nesting.
 */
export function bodyMutations(schema: JsonSchema, sample: unknown): fc.Arbitrary<BodyMutation> {
  const base = sample ?? {};
  const all = sitesOf(schema, base).flatMap((site) => mutationsAt(site, base));
  return fc.oneof(...all);
}
