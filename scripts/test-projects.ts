/**
 * Which test project (vitest.config.ts) a test file belongs to, read from what it imports, so
 * that a new test file lands in the right one without a list to keep (issue 20):
 *   - `browser`: the web app's tests in Chromium (packages/web/test, through browser.ts);
 *   - `pglite`: every other file that starts a Tessera server or opens a store (it imports the
 *     harness, directly or through a test helper), on the embedded store;
 *   - `postgres`: the server's store-backed files again on PostgreSQL, for what can differ there
 *     (SQL, locking, LISTEN/NOTIFY, replicas, concurrency), but for `storeIndependent` ones;
 *   - `unit`: the rest (the semantic layer, the client's pure parts, renderers, the CLI).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Store-backed files whose outcome cannot depend on the store: request validation and error
 * shapes (answered before a handler reads the store), documents generated from route schemas,
 * the web app's static serving and rendering, the generated client against a server. They run
 * on PGlite only.
 */
const storeIndependent = [
  'packages/server/test/fuzz/',
  'packages/server/test/bad-input.test.ts',
  'packages/server/src/modules/deployments/data-source-kinds-bad-input.test.ts',
  'packages/server/test/unknown-query-parameters.test.ts',
  'packages/server/test/path-integers.test.ts',
  'packages/server/test/error-catalogue.test.ts',
  'packages/server/src/http/web-app.test.ts',
  'packages/server/src/modules/data/openapi.test.ts',
  'packages/server/src/modules/data/meta-schema.test.ts',
  'packages/server/src/render/demo-reference.test.ts',
  // The warehouse is their subject: the same rows from each engine, its errors, its lifecycle.
  // The store only holds the deployment they query, whose writes the deployments and
  // data-sources files check on PostgreSQL.
  'packages/server/src/modules/data/engines.test.ts',
  'packages/server/src/modules/data/cubesql/engines.test.ts',
  'packages/server/src/modules/data/mariadb.test.ts',
  'packages/server/src/modules/data/trino.test.ts',
  'packages/server/src/modules/data/presto.test.ts',
  'packages/server/src/modules/data/redshift.test.ts',
  'packages/server/src/modules/data/clickhouse.test.ts',
  'packages/server/src/modules/data/snowflake.test.ts',
  'packages/server/src/modules/data/bigquery.test.ts',
  'packages/server/src/modules/data/athena.test.ts',
  'packages/server/src/modules/data/databricks.test.ts',
  'packages/server/src/modules/data/warehouse-unavailable.test.ts',
  'packages/server/src/modules/data/model-constructs.test.ts',
  // The drawn image is their subject (render-store-reads.test.ts checks the store's part).
  'packages/server/src/modules/notifications/demo-render.test.ts',
  'packages/server/src/modules/notifications/tabbed-render.test.ts',
];

const harnessFiles = ['packages/server/test/harness.ts', 'packages/server/test/test-stores.ts'];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'dist' ? [] : testFiles(file);
    return entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

const importPattern = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** Whether `file` imports the harness, itself or through test helpers (files outside `src/`, or siblings in a test folder). */
function reachesHarness(root: string, file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const source = readFileSync(path.join(root, file), 'utf8');
  for (const [, specifier] of source.matchAll(importPattern)) {
    const target = path.normalize(path.join(path.dirname(file), specifier!));
    if (harnessFiles.includes(target)) return true;
    const helper = target.includes(`${path.sep}test${path.sep}`) && existsSync(path.join(root, target));
    if (helper && reachesHarness(root, target, seen)) return true;
  }
  return false;
}

export interface TestProjects {
  unit: string[];
  pglite: string[];
  postgres: string[];
  browser: string[];
}

export function testProjects(root: string): TestProjects {
  const files = testFiles(path.join(root, 'packages'))
    .map((f) => path.relative(root, f))
    .sort();
  const projects: TestProjects = { unit: [], pglite: [], postgres: [], browser: [] };
  for (const file of files) {
    if (!reachesHarness(root, file)) projects.unit.push(file);
    else if (file.startsWith('packages/web/')) projects.browser.push(file);
    else {
      projects.pglite.push(file);
      const independent = storeIndependent.some((p) => file.startsWith(p));
      if (file.startsWith('packages/server/') && !independent) projects.postgres.push(file);
    }
  }
  return projects;
}
