/**
 * Which operations of the hosted product's management API (shared/reference/platform-api.yaml, or
 * the file given) Tessera's OpenAPI document answers, per reference tag, with the missing ones
 * listed: `node --import tsx scripts/reference-coverage.ts [reference.yaml]` (issue 25: scripts
 * written for the hosted product should find every operation). Paths compare with their
 * parameters' names ignored. A missing operation the OpenAPI document's description names (its
 * group in bold, or its path in backticks) is a decision, printed with that reason; any other is
 * a gap.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

type Operations = Record<string, { tags?: string[] }>;
type Document = { paths: Record<string, Operations> };

// `| head` closes the pipe early: that is the reader's choice, not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const methods = new Set(['get', 'post', 'put', 'patch', 'delete']);
const referenceFile = process.argv[2] ?? '../shared/reference/platform-api.yaml';
const reference = parse(readFileSync(referenceFile, 'utf8')) as Document;
const ours = JSON.parse(readFileSync('packages/server/openapi.json', 'utf8')) as Document;

const operationKey = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;
const answered = new Set(
  Object.entries(ours.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => operationKey(m, path))),
);

const byTag = new Map<string, { answered: number; missing: string[] }>();
let total = 0;
let found = 0;
for (const [path, ops] of Object.entries(reference.paths)) {
  for (const [method, op] of Object.entries(ops)) {
    if (!methods.has(method)) continue;
    const tag = op.tags?.[0] ?? '(untagged)';
    const entry = byTag.get(tag) ?? { answered: 0, missing: [] };
    byTag.set(tag, entry);
    total++;
    if (answered.has(operationKey(method, path))) {
      found++;
      entry.answered++;
    } else entry.missing.push(`${method.toUpperCase()} ${path}`);
  }
}

/** The description's bullets of what Tessera does not serve (src/http/openapi.ts), by what they name. */
const reasons = ((ours as { info?: { description?: string } }).info?.description ?? '')
  .split('\n')
  .filter((line) => line.startsWith('- '))
  .map((line) => ({
    tags: [...line.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1]!),
    paths: [...line.matchAll(/`(?:[A-Z]+ )?(\/[^`]+)`/g)].map((m) => m[1]!),
    reason: line.slice(2).replace(/^[^:]+:\s*/, ''),
  }));
const reasonFor = (tag: string, op: string) =>
  reasons.find((r) => r.tags.includes(tag) || r.paths.some((p) => op.endsWith(` ${p}`)))?.reason;

console.log(`Tessera answers ${found} of the reference's ${total} operations.`);
let gaps = 0;
for (const [tag, entry] of [...byTag].sort(([a], [b]) => a.localeCompare(b))) {
  const total = entry.answered + entry.missing.length;
  console.log(`${tag}: ${entry.answered}/${total}`);
  for (const op of entry.missing) {
    const reason = reasonFor(tag, op);
    if (!reason) gaps++;
    console.log(`  ${op}\n    ${reason ? `not served: ${reason}` : 'missing'}`);
  }
}
console.log(`${gaps} missing without a stated reason.`);
