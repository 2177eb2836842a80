/**
 * bench/sign-in: the time shape of browser sign-in (modules/sign-in) over loopback HTTP. Every
 * refusal (wrong password, unknown email, deactivated user, user without a password) should take
 * as long as a check of a real password, so that timing does not tell which accounts exist; and
 * the cost of the session cookie as a credential next to an API key on a management read.
 *
 *   node --import tsx bench/sign-in/run.ts            # PGlite in a temporary directory
 *   BENCH_SIGN_INS=80 node --import tsx bench/sign-in/run.ts
 *
 * Cases are interleaved request by request, so that load from elsewhere on the machine falls on
 * all of them alike. Prints medians and the 10th and 90th percentiles in milliseconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openMigratedStore, secretBoxFor } from '../../packages/server/src/bootstrap/runtime.ts';
import { seed } from '../../packages/server/src/bootstrap/seed.ts';
import { loadConfig } from '../../packages/server/src/config/config.ts';
import { buildApp } from '../../packages/server/src/http/app.ts';
import { median } from '../lib/stats.ts';

const rounds = Number(process.env.BENCH_SIGN_INS ?? 40);

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-sign-in-'));
  const config = {
    ...loadConfig({}),
    dataDir,
    port: 0,
    rateLimitPerMinute: 0,
    logLevel: 'warn',
    skipDemo: true,
  };
  const store = await openMigratedStore(config);
  const secrets = secretBoxFor(config);
  const seeded = await seed(store.db, secrets, { dataDir, adminApiKey: null, skipDemo: true });
  const { app } = await buildApp({ config, db: store.db, secrets, logger: false });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const admin = { authorization: `Bearer ${seeded.createdAdminKey}`, 'content-type': 'application/json' };
  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const started = performance.now();
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - started, res };
  };

  // One account per round and case, so that no email reaches the attempt limit (10 per 15 minutes).
  const makeUser = async (email: string, password: string | null, deactivate: boolean) => {
    const res = await fetch(`${base}/api/v1/users`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ email, username: email }),
    });
    const { id } = (await res.json()) as { id: number };
    if (password !== null)
      await fetch(`${base}/api/v1/users/${id}/password`, {
        method: 'PUT',
        headers: admin,
        body: JSON.stringify({ password }),
      });
    if (deactivate)
      await fetch(`${base}/api/v1/users/${id}`, {
        method: 'PUT',
        headers: admin,
        body: JSON.stringify({ isDeactivated: true }),
      });
  };
  const password = 'the bench password';
  await makeUser('right@bench.example', password, false);
  for (let i = 0; i < rounds; i++) {
    await makeUser(`wrong-${i}@bench.example`, password, false);
    await makeUser(`deactivated-${i}@bench.example`, password, true);
    await makeUser(`passwordless-${i}@bench.example`, null, false);
  }

  const cases: Record<string, (i: number) => { email: string; password: string; expect: number }> = {
    'right password (200)': () => ({ email: 'right@bench.example', password, expect: 200 }),
    'wrong password (401)': (i) => ({ email: `wrong-${i}@bench.example`, password: 'not it', expect: 401 }),
    'unknown email (401)': (i) => ({ email: `nobody-${i}@bench.example`, password, expect: 401 }),
    'deactivated user (401)': (i) => ({ email: `deactivated-${i}@bench.example`, password, expect: 401 }),
    'no password set (401)': (i) => ({ email: `passwordless-${i}@bench.example`, password, expect: 401 }),
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  let cookie = '';
  // A warm-up round (JIT, the dummy hash, the store's caches), not counted.
  for (let i = -1; i < rounds; i++) {
    // The order rotates each round, so that no case always follows the sign-in that wrote a session.
    const entries = Object.entries(cases);
    const turn = (i + 1) % entries.length;
    for (const [name, make] of [...entries.slice(turn), ...entries.slice(0, turn)]) {
      const { email, password: given, expect } = make(Math.max(i, 0));
      const r = await call('POST', '/api/v1/session', { email, password: given });
      if (r.status !== expect) throw new Error(`${name}: answered ${r.status}`);
      if (r.status === 200) cookie = (r.res.headers.getSetCookie()[0] ?? '').split(';')[0];
      if (i >= 0) times[name].push(r.ms);
    }
  }

  const reads: Record<string, number[]> = { 'API key': [], 'session cookie': [] };
  for (let i = -20; i < rounds * 5; i++) {
    const byKey = await call('GET', '/api/v1/deployments', undefined, { authorization: admin.authorization });
    const byCookie = await call('GET', '/api/v1/deployments', undefined, { cookie });
    if (byKey.status !== 200 || byCookie.status !== 200) throw new Error('read failed');
    if (i >= 0) {
      reads['API key'].push(byKey.ms);
      reads['session cookie'].push(byCookie.ms);
    }
  }

  const line = (name: string, xs: number[]) =>
    `  ${name.padEnd(26)} median ${median(xs).toFixed(1).padStart(6)}  p10 ${percentile(xs, 10).toFixed(1).padStart(6)}  p90 ${percentile(xs, 90).toFixed(1).padStart(6)}`;
  console.log(`POST /api/v1/session, ${rounds} rounds (ms):`);
  for (const [name, xs] of Object.entries(times)) console.log(line(name, xs));
  const right = median(times['right password (200)']);
  const spread = Object.values(times).map((xs) => median(xs) / right);
  console.log(
    `  refusals take ${Math.min(...spread).toFixed(2)}x to ${Math.max(...spread).toFixed(2)}x the time of a right password`,
  );
  console.log(`GET /api/v1/deployments, ${rounds * 5} requests each (ms):`);
  for (const [name, xs] of Object.entries(reads)) console.log(line(name, xs));

  await app.close();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
