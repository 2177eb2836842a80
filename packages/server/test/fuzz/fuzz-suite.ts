import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedToken } from '../../src/modules/embed/test-support.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { createFixtures } from '../route-samples.ts';
import { type StoreChanges, storeChanges } from '../store-changes.ts';
import { dataFixtures } from './data-samples.ts';
import type { JsonSchema } from './json-schema-arbitrary.ts';
import { type FuzzRequest, requestArbitrary } from './request-arbitrary.ts';
import { contractViolations } from './response-contract.ts';
import { type Family, type RouteCase, routeCases } from './route-cases.ts';
import { scimFixtures } from './scim-samples.ts';

/** TESSERA_FUZZ_SEED replays a run; TESSERA_FUZZ_RUNS sets the runs per route. */
const seed = Number(process.env.TESSERA_FUZZ_SEED ?? 20_260_517);
const runsPerRoute = Number(process.env.TESSERA_FUZZ_RUNS ?? 40);
/**
 * Every failing request is already one change away from a valid sample, so shrinking is off by
 * default (it costs a request per step); TESSERA_FUZZ_SHRINK=1 turns it on.
 */
const shrink = process.env.TESSERA_FUZZ_SHRINK === '1';
/** TESSERA_FUZZ_ROUTE narrows the run to the routes whose `METHOD /url` contains it. */
const only = process.env.TESSERA_FUZZ_ROUTE;

/** Each route has its own stream from the one seed, so that adding a route changes no other. */
function routeSeed(id: string): number {
  let hash = 2_166_136_261;
  for (const char of id) hash = Math.imul(hash ^ char.charCodeAt(0), 16_777_619);
  return (seed ^ hash) | 0;
}

const writeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface FuzzPart {
  families: Family[];
  /** This file's share of the families' routes: every `of`-th route from the `part`-th (1-based). */
  part?: number;
  of?: number;
  /** Whether this file checks that every route of the table has a case (one file does). */
  checksCoverage?: boolean;
}

/**
 * Property-based fuzzing of every route in the route table (management API, SCIM, data API and
 * public pages), from each route's TypeBox schema and its valid sample: whatever the request,
 * no 5xx; every 4xx in its family's error shape (problem+json with a code, the SCIM error
 * schema, Cube's {error}); malformed input refused with a 4xx that names the field; and a write
 * refused with a 4xx leaves the store as it was (DESIGN.md "Errors").
 *
 * The routes are shared among several test files (management-1.test.ts, ...), each a part, so
 * that the test workers fuzz side by side (issue 20); every file sets up its own server.
 */
export function describeFuzz({ families, part = 1, of = 1, checksCoverage = false }: FuzzPart): void {
  const title = `fuzzing ${families.join(', ')} routes${of > 1 ? ` (part ${part} of ${of})` : ''}`;
  describe(title, () => {
    let server: TestServer;
    let cases: RouteCase[] = [];
    let uncovered: string[] = [];
    let changes: StoreChanges;
    const credentials: Record<string, string> = {};
    let totalRuns = 0;
    const answered = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 };
    const timings: string[] = [];

    beforeAll(async () => {
      server = await startTestServer();
      const fixtures = await createFixtures(server);
      const scim = await scimFixtures(server);
      const loadRoute = server.routes.find(
        (r) => r.method === 'POST' && r.url.endsWith('/cubejs-api/v1/load'),
      );
      const querySchema = (loadRoute?.schema?.body as JsonSchema).properties!.query;
      const data = await dataFixtures(server, querySchema);
      credentials.admin = `Bearer ${server.adminKey}`;
      credentials.scim = `Bearer ${scim.token}`;
      credentials.data = data.token;
      // An embed token whose session allows dashboard chat (spec 4.3), for the embed-only routes.
      credentials.embed = `Bearer ${await embedToken(server, {
        deploymentId: fixtures.deploymentId,
        externalId: 'fuzz',
        // An embed tenant too, so that the dashboard comment routes (issue 25) reach their rules.
        embedTenantName: 'fuzz',
        settings: { showDashboardChat: true },
      })}`;
      ({ cases, uncovered } = await routeCases(server.routes, { server, fixtures, scim, data }));
      changes = await storeChanges(server);
    });
    afterAll(async () => {
      console.log(
        `fuzz: seed ${seed} (TESSERA_FUZZ_SEED), ${runsPerRoute} runs per route (TESSERA_FUZZ_RUNS), ` +
          `${totalRuns} requests over ${cases.length} routes (${JSON.stringify(answered)}), store ${server?.store.label} (${timings.join(', ')})`,
      );
      await server?.close();
    });

    async function send(r: FuzzRequest) {
      const authorization =
        typeof r.credential === 'string' ? credentials[r.credential] : r.credential.authorization;
      const headers: Record<string, string> = {
        ...(authorization ? { authorization } : {}),
        ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...r.headers,
      };
      const payload = r.raw ?? (r.body !== undefined ? JSON.stringify(r.body) : undefined);
      const res = await server.app.inject({
        method: r.method as 'GET',
        url: r.url,
        headers,
        ...(payload !== undefined ? { payload } : {}),
      });
      return {
        status: res.statusCode,
        contentType: String(res.headers['content-type'] ?? ''),
        body: res.body,
      };
    }

    /** Runs one route's property; returns fast-check's report (counterexample, seed, path) on failure. */
    async function fuzzRoute(c: RouteCase): Promise<string | undefined> {
      const property = fc.asyncProperty(requestArbitrary(c), async (r) => {
        totalRuns++;
        const write = writeMethods.has(r.method);
        const before = write ? await changes.mark() : undefined;
        const answer = await send(r);
        answered[`${Math.floor(answer.status / 100)}xx` as keyof typeof answered]++;
        const problems = contractViolations(c.family, r, answer);
        if (before !== undefined && answer.status >= 400 && answer.status < 500) {
          const changed = await changes.since(before);
          if (changed.length > 0)
            problems.push(`answered ${answer.status} but changed ${changed.join(', ')}`);
        }
        if (problems.length > 0) throw new Error(problems.join('\n'));
      });
      const details = await fc.check(property, {
        seed: routeSeed(c.id),
        numRuns: runsPerRoute,
        endOnFailure: !shrink,
      });
      if (!details.failed) return undefined;
      const error =
        details.errorInstance instanceof Error
          ? details.errorInstance.message
          : String(details.errorInstance);
      return `${c.id}\n${fc.defaultReportMessage(details)}\nGot: ${error}\nReplay: TESSERA_FUZZ_SEED=${seed} TESSERA_FUZZ_ROUTE='${c.id}'`;
    }

    it.runIf(checksCoverage)('has a fuzz case for every route of the table', () => {
      expect(
        uncovered,
        'give these routes a sample (test/route-samples.ts or test/fuzz/*-samples.ts)',
      ).toEqual([]);
      expect(cases.length).toBeGreaterThan(100);
    });

    it.runIf(checksCoverage)('sees what a write commits, and only that', async () => {
      // The store check is only as good as its journal: a committed change shows with its
      // table, a rolled-back one and a bookkeeping stamp do not.
      const db = server.store.db;
      const start = await changes.mark();
      await sql`update api_keys set last_used_at = now()`.execute(db);
      await sql`update deployments set name = name`.execute(db);
      await db
        .transaction()
        .execute(async (trx) => {
          await sql`update deployments set name = name || '!'`.execute(trx);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      expect(await changes.since(start)).toEqual([]);
      await sql`update deployments set updated_at = updated_at + interval '1 second'`.execute(db);
      await sql`update deployments set updated_at = updated_at - interval '1 second'`.execute(db);
      expect(await changes.since(start)).toEqual(['deployments']);
    });

    for (const family of families) {
      it(`keeps the error contract on every ${family} route`, { timeout: 600_000 }, async () => {
        const failures: string[] = [];
        const started = performance.now();
        const ours = cases.filter((x) => x.family === family).filter((_, i) => i % of === part - 1);
        for (const c of ours.filter((x) => !only || x.id.includes(only))) {
          const failure = await fuzzRoute(c);
          if (failure) {
            failures.push(failure);
            console.error(`fuzz failure (seed ${seed}): ${failure}\n`);
          }
        }
        timings.push(`${family} ${((performance.now() - started) / 1000).toFixed(1)} s`);
        expect(failures.map((f) => f.split('\n')[0])).toEqual([]);
      });
    }
  });
}
