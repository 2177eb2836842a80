/**
 * Notification delivery benchmark: N notifications (default 1,000) due at the same minute, each
 * with one email recipient, delivered by one scheduler pass to an SMTP server in this process
 * (smtp-server). The notifications spread over V render variants (default 10: five status filters
 * times PNG and PDF) of one four-widget dashboard over the sample data (1,000,000 orders), so that
 * renders are shared within the pass as they are in production when many notifications show the
 * same board to the same owner.
 *
 *   node --import tsx bench/notifications/run.ts
 *
 * Printed: time to drain (planning, rendering, sending and recording every delivery) and
 * deliveries per second, with the time to the first mail; the baseline, measured in the same
 * run: the same N mails, already rendered and composed, sent straight through a nodemailer pool
 * with as many connections; their ratio. Every mail is counted at the SMTP server and every
 * delivery checked `sent` in the store.
 *
 * Env: TESSERA_BENCH_NOTIFICATIONS (N), TESSERA_BENCH_VARIANTS (V, 1-10),
 * TESSERA_SCHEDULER_CONCURRENCY (runs at once, the server's default when unset), TESSERA_BENCH_DIR (data directory,
 * reused), DATABASE_URL (PostgreSQL instead of PGlite), TESSERA_BENCH_CPU_PROFILE (a file: a CPU profile of
 * the scheduler's pass only, without the setup, for Chrome DevTools or `speedscope`),
 * TESSERA_BENCH_SQL_STATS (set: the statements of the pass by kind, with their count and time).
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { KyselyPlugin } from 'kysely';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { openMigratedStore, secretBoxFor } from '../../packages/server/src/bootstrap/runtime.ts';
import { seed } from '../../packages/server/src/bootstrap/seed.ts';
import { loadConfig } from '../../packages/server/src/config/config.ts';
import { sampleDatabaseFile } from '../../packages/server/src/datasources/registry.ts';
import { ensureSampleDatabase } from '../../packages/server/src/datasources/sample/generate.ts';
import { buildApp } from '../../packages/server/src/http/app.ts';
import {
  composeEmail,
  type DeliveryMessage,
} from '../../packages/server/src/modules/notifications/channels.ts';
import type { RenderedDashboardFile } from '../../packages/server/src/modules/notifications/renderer.ts';

const count = Number(process.env.TESSERA_BENCH_NOTIFICATIONS ?? 1000);
const variantCount = Math.min(10, Math.max(1, Number(process.env.TESSERA_BENCH_VARIANTS ?? 10)));
const concurrency = loadConfig().scheduler.concurrency;
const smtpConnections = 5;

async function startMailbox() {
  let received = 0;
  let bytes = 0;
  let firstAt = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 50 * 1024 * 1024,
    onData(stream, _session, callback) {
      stream.on('data', (c: Buffer) => {
        bytes += c.length;
      });
      stream.on('end', () => {
        received++;
        if (received === 1) firstAt = performance.now();
        callback();
      });
    },
  });
  smtp.listen(0, '127.0.0.1');
  await once(smtp.server, 'listening');
  return {
    url: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    stats: () => ({ received, bytes, firstAt }),
    reset() {
      received = 0;
      bytes = 0;
      firstAt = 0;
    },
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

/**
 * Counts the statements the scheduler sends to the store during the pass, with the time from
 * compiling each to its result (waiting for PGlite's one connection included).
 */
function statementCounter(detailed: boolean) {
  const started = new Map<object, { sql: string; at: number }>();
  let stats = new Map<string, { count: number; ms: number }>();
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      const sql = detailed ? shape(args.node) : 'all';
      started.set(args.queryId, { sql, at: performance.now() });
      return args.node;
    },
    async transformResult(args) {
      const s = started.get(args.queryId);
      if (s) {
        started.delete(args.queryId);
        const entry = stats.get(s.sql) ?? { count: 0, ms: 0 };
        entry.count++;
        entry.ms += performance.now() - s.at;
        stats.set(s.sql, entry);
      }
      return args.result;
    },
  };
  return {
    plugin,
    reset() {
      stats = new Map();
    },
    report() {
      const all = [...stats].map(([sql, e]) => ({ sql, ...e }));
      return {
        total: all.reduce((n, s) => n + s.count, 0),
        top: all.sort((a, b) => b.ms - a.ms).slice(0, 12),
      };
    },
  };
}

/** A statement's kind and table, enough to tell the scheduler's statements apart. */
function shape(node: unknown): string {
  // Values left out: one statement with other parameters is the same statement.
  const text = JSON.stringify(node, (key, v) => (key === 'value' || key === 'values' ? undefined : v));
  const kind = (node as { kind: string }).kind.replace(/QueryNode$/, '');
  const tables = new Set([...text.matchAll(/"name":"(notification\w*|dashboards)"/g)].map((m) => m[1]));
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (hash * 31 + text.charCodeAt(i)) | 0;
  return `${kind} ${[...tables].join(',')} #${(hash >>> 0).toString(36)}`;
}

/** Profiles the scheduler's pass alone when `file` is set (`--cpu-prof` would include the setup). */
async function startProfile(file: string | undefined) {
  if (!file) return { stop: async () => {} };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

async function main() {
  const mailbox = await startMailbox();
  const dataDir = process.env.TESSERA_BENCH_DIR ?? path.join(os.tmpdir(), 'tessera-bench-data');
  const storeDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-notifications-'));
  const base = loadConfig({ DATABASE_URL: process.env.DATABASE_URL ?? '' });
  const config = {
    ...base,
    dataDir,
    rateLimitPerMinute: 0,
    logLevel: 'warn',
    smtpUrl: mailbox.url,
    publicUrl: 'https://tessera.example.com',
    scheduler: { disabled: true, intervalMs: 60_000, concurrency },
  };
  await ensureSampleDatabase(sampleDatabaseFile(dataDir), 1, (line) => process.stderr.write(`\r${line}   `));
  process.stderr.write('\n');
  // A fresh metadata store per run (the sample data above is reused): PGlite unless DATABASE_URL.
  const store = await openMigratedStore({ ...config, dataDir: storeDir });
  const secrets = secretBoxFor({ ...config, dataDir: storeDir });
  const seeded = await seed(store.db, secrets, { dataDir, adminApiKey: null, skipDemo: false });
  const statements = statementCounter(Boolean(process.env.TESSERA_BENCH_SQL_STATS));
  const { app, services } = await buildApp({
    config,
    db: store.db.withPlugin(statements.plugin),
    secrets,
    logger: false,
  });
  await app.ready();
  const auth = { authorization: `Bearer ${seeded.createdAdminKey}` };
  const deploymentId = seeded.demoDeploymentId as number;
  const call = async (method: 'POST', url: string, payload: unknown) => {
    const res = await app.inject({ method, url, headers: auth, payload: payload as object });
    if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };

  try {
    const ws = `/api/v1/deployments/${deploymentId}`;
    const wb = await call('POST', `${ws}/workbooks`, { name: 'Bench board' });
    const report = (name: string, query: unknown) =>
      call('POST', `${ws}/reports`, { name, workbookId: wb.id, jsonQuery: JSON.stringify(query) });
    const status = await report('Orders by status', {
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      order: { 'orders.status': 'asc' },
    });
    const total = await report('All orders', { measures: ['orders.count'] });
    const yearly = await report('Orders per year', {
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'year' }],
    });
    const board = await call('POST', `${ws}/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      config: {
        title: 'Bench board',
        layout: { rowHeight: 30 },
        widgets: [
          { id: 'status', position: { x: 0, y: 0, w: 6, h: 8 }, config: { reportId: status.id } },
          { id: 'total', position: { x: 6, y: 0, w: 3, h: 4 }, config: { reportId: total.id } },
          { id: 'note', position: { x: 9, y: 0, w: 3, h: 4 }, config: { text: 'Benchmark' } },
          { id: 'yearly', position: { x: 6, y: 4, w: 6, h: 4 }, config: { reportId: yearly.id } },
        ],
      },
    });
    const statuses = ['completed', 'shipped', 'processing', 'cancelled', 'returned'];
    const variants = Array.from({ length: variantCount }, (_, i) => ({
      format: i < 5 ? 'png' : 'pdf',
      filters: [{ member: 'orders.status', operator: 'equals', value: statuses[i % 5] }],
    }));

    process.stderr.write(`creating ${count} notifications...\n`);
    for (let i = 0; i < count; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, count - i) }, async (_, j) => {
          const v = variants[(i + j) % variants.length];
          const n = await call('POST', `${ws}/notifications`, {
            scheduleType: 'HOURLY',
            minute: 0,
            dashboardId: board.id,
            notificationFormat: v.format,
            filters: v.filters,
          });
          await call('POST', `${ws}/notifications/${n.id}/recipients`, {
            recipients: [{ type: 'EMAIL', email: `reader${i + j}@example.com` }],
          });
        }),
      );
    }
    const at = new Date(Math.ceil(Date.now() / 3600_000) * 3600_000);

    // The scheduler: one pass at the fire time plans, renders, sends and records everything.
    mailbox.reset();
    statements.reset();
    const profile = await startProfile(process.env.TESSERA_BENCH_CPU_PROFILE);
    const start = performance.now();
    const result = await services.notifications.scheduler.tick(at);
    const drained = performance.now() - start;
    await profile.stop();
    const counted = statements.report();
    const got = mailbox.stats();
    const sent = await store.db
      .selectFrom('notification_deliveries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('state', '=', 'sent')
      .executeTakeFirstOrThrow();
    if (result.runs !== count || got.received !== count || Number(sent.n) !== count)
      throw new Error(
        `expected ${count} runs, mails and sent deliveries: ${result.runs}, ${got.received}, ${sent.n}`,
      );

    // Baseline: the same mails, rendered and composed beforehand, straight through nodemailer.
    const files: RenderedDashboardFile[] = [];
    const renderStart = performance.now();
    for (const v of variants)
      files.push(
        await services.notifications.renderer.render({
          tenantId: seeded.tenantId,
          deploymentId,
          dashboardPublicId: board.publicId,
          subject: { kind: 'user', userId: seeded.adminUserId },
          filters: v.filters as never,
          timeGrains: null,
          format: v.format as 'png' | 'pdf',
          withPreview: true,
        }),
      );
    const renderMs = (performance.now() - renderStart) / variants.length;
    const mails = Array.from({ length: count }, (_, i) => {
      const message: DeliveryMessage = {
        notificationId: i + 1,
        deploymentId,
        dashboardId: board.id,
        dashboardPublicId: board.publicId,
        fireTime: at,
        timezone: 'UTC',
        deliveryId: `baseline:${i}`,
        dashboardUrl: `https://tessera.example.com/dashboards/${board.publicId}`,
        file: files[i % files.length],
      };
      return composeEmail(
        config.smtpFrom,
        'localhost',
        { address: `reader${i}@example.com`, name: null },
        message,
      );
    });
    const transport = nodemailer.createTransport({
      url: mailbox.url,
      pool: true,
      maxConnections: smtpConnections,
      maxMessages: 1000,
    } as never);
    mailbox.reset();
    const baseStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < mails.length) await transport.sendMail(mails[next++]);
      }),
    );
    const baseline = performance.now() - baseStart;
    transport.close();
    if (mailbox.stats().received !== count) throw new Error('baseline lost mails');

    const row = (name: string, value: string) => console.log(`${name.padEnd(58)} ${value}`);
    console.log(
      `${count} notifications due at once, ${variants.length} render variants, one email each; ` +
        `scheduler concurrency ${concurrency}, ${smtpConnections} SMTP connections; store ${store.kind}`,
    );
    row('scheduler: time to drain (plan, render, send, record)', `${(drained / 1000).toFixed(2)} s`);
    row('scheduler: deliveries per second', `${((count / drained) * 1000).toFixed(0)}/s`);
    row('scheduler: time to the first mail', `${((got.firstAt - start) / 1000).toFixed(2)} s`);
    row('one render of the dashboard (median of variants, PNG or PDF)', `${renderMs.toFixed(0)} ms`);
    row(
      'baseline: same mails pre-rendered, straight through nodemailer',
      `${(baseline / 1000).toFixed(2)} s`,
    );
    row('baseline: mails per second', `${((count / baseline) * 1000).toFixed(0)}/s`);
    row('ratio, scheduler / baseline', `${(drained / baseline).toFixed(2)}x`);
    row('mail size (mean)', `${Math.round(got.bytes / count / 1024)} KiB`);
    row('store statements in the pass, per delivery', (counted.total / count).toFixed(2));
    if (process.env.TESSERA_BENCH_SQL_STATS)
      for (const s of counted.top)
        console.log(`  ${String(s.count).padStart(6)} x ${s.ms.toFixed(0).padStart(6)} ms  ${s.sql}`);
  } finally {
    await app.close();
    await store.close();
    await mailbox.close();
    rmSync(storeDir, { recursive: true, force: true });
  }
}

await main();
