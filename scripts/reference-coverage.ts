/**
 * Which operations of the hosted product's management API (shared/reference/platform-api.yaml, or
 * the file given) Tessera's OpenAPI document answers, per reference tag, with the missing ones
 * listed: `node --import tsx scripts/reference-coverage.ts [reference.yaml]` (issue 25: scripts
 * written for the hosted product should find every operation). Paths compare with their
 * parameters' names ignored.
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

console.log(`Tessera answers ${found} of the reference's ${total} operations.`);
for (const [tag, entry] of [...byTag].sort(([a], [b]) => a.localeCompare(b))) {
  if (entry.missing.length === 0) continue;
  console.log(`${tag}: ${entry.answered}/${entry.answered + entry.missing.length}`);
  for (const op of entry.missing) console.log(`  ${op}`);
}
