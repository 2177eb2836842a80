import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { countSetup } from '../../../test/setup-counters.ts';
import { contentClient } from '../workspace/test-client.ts';
import { notificationsApi, startMailbox } from './test-support.ts';

/**
 * Crash safety (DESIGN.md "Notifications and rendering": a crash never loses a send, and a retry
 * never sends twice): a server process is killed with SIGKILL while its SMTP server holds the
 * second of three mails unanswered, and a new process takes the run over once its lease passed.
 * Every recipient gets exactly one message. Two processes need a store both reach: PostgreSQL
 * only; skipped on PGlite, whose store lives inside the test process.
 */
const onPostgres = inject('testDb') === 'postgres';
const child = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../test/notifications-crash-child.ts',
);

describe.skipIf(!onPostgres)('a server killed mid-delivery', () => {
  let server: TestServer;
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;
  let databaseUrl: string;

  beforeAll(async () => {
    mailbox = await startMailbox();
    server = await startTestServer({ smtpUrl: mailbox.url });
    const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(server.store.db);
    const url = new URL(inject('postgresUrl') as string);
    url.pathname = `/${rows[0].name}`;
    databaseUrl = url.toString();
  });
  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
  });

  function startChild(at: Date, leaseMs: number): { proc: ChildProcess; output: () => string } {
    let output = '';
    countSetup('processes');
    const proc = spawn(process.execPath, ['--import', 'tsx', child], {
      env: {
        ...process.env,
        CRASH_DATABASE_URL: databaseUrl,
        CRASH_SMTP_URL: mailbox.url,
        CRASH_DATA_DIR: server.config.dataDir,
        CRASH_AT: at.toISOString(),
        CRASH_LEASE_MS: String(leaseMs),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    proc.stderr?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    return { proc, output: () => output };
  }

  it('delivers to every recipient exactly once after a SIGKILL and a restart', {
    timeout: 300_000,
  }, async () => {
    // A dashboard of text only: the processes render it without opening the sample database.
    const content = contentClient(server, server.demoDeploymentId);
    const wb = await content.workbook('Crash board');
    const board = await content.ok('POST', `/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      config: {
        title: 'Crash board',
        widgets: [{ id: 'note', position: { x: 0, y: 0, w: 12, h: 2 }, config: { text: 'Still here' } }],
      },
    });
    const api = notificationsApi(server);
    const n = await api.create({ scheduleType: 'DAILY', hour: 4, dashboardId: board.id });
    const recipients = ['one@example.com', 'two@example.com', 'three@example.com'];
    await api.addRecipients(
      n.id,
      recipients.map((email) => ({ type: 'EMAIL', email })),
    );
    const at = new Date(n.nextFireAt);
    const leaseMs = 5_000;

    const held = mailbox.holdMessage(2);
    const first = startChild(at, leaseMs);
    const exited = once(first.proc, 'exit');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      held,
      exited.then(() => {
        throw new Error(`the first process ended before the second mail: ${first.output()}`);
      }),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no second mail: ${first.output()}`)), 150_000);
      }),
    ]).finally(() => clearTimeout(timer));
    first.proc.kill('SIGKILL');
    const [code, signal] = await exited;
    expect(signal ?? code).toBe('SIGKILL');
    expect(mailbox.envelopes.flat()).toEqual(['one@example.com']);
    const mid = await server.store.db
      .selectFrom('notification_deliveries')
      .select(['address', 'state'])
      .orderBy('address')
      .execute();
    expect(mid.map((d) => `${d.address}:${d.state}`).sort()).toEqual([
      'one@example.com:sent',
      'three@example.com:pending',
      'two@example.com:sending',
    ]);

    // Restarted: a new process's pass once the dead one's lease has passed.
    const second = startChild(new Date(at.getTime() + leaseMs + 1000), leaseMs);
    const [exitCode] = await once(second.proc, 'exit');
    expect(exitCode, second.output()).toBe(0);
    await mailbox.waitFor(3);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailbox.envelopes.flat().sort()).toEqual([...recipients].sort());
    const [run] = (await api.runs(n.id)).items;
    expect(run).toMatchObject({ state: 'succeeded', attempts: 2 });
    expect(
      run.deliveries.map((d: { address: string; attempts: number }) => `${d.address}:${d.attempts}`).sort(),
    ).toEqual(['one@example.com:1', 'three@example.com:1', 'two@example.com:2']);
  });
});
