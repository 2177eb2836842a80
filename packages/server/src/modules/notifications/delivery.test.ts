import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { PNG } from 'pngjs';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { webhookSignature } from './channels.ts';
import {
  notificationsApi,
  pngMagic,
  publishNotificationBoard,
  startHookReceiver,
  startMailbox,
} from './test-support.ts';

/**
 * Scheduled delivery end to end (spec 6; DESIGN.md "Notifications and rendering"): a due
 * notification is planned by the scheduler, its dashboard rendered without a browser with the
 * notification's filters under its owner's security context, and delivered to a real SMTP server
 * in this process (smtp-server, read back with mailparser) and to a real local HTTP endpoint.
 * The scheduler is driven with `tick(now)`, so each test decides what time it is.
 */
const outDir = path.join(os.tmpdir(), 'tessera-notification-output');

describe('notification delivery', () => {
  let server: TestServer;
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;
  let board: Awaited<ReturnType<typeof publishNotificationBoard>>;
  let api: ReturnType<typeof notificationsApi>;
  const tick = (at: Date) => server.services.notifications.scheduler.tick(at);

  beforeAll(async () => {
    mailbox = await startMailbox();
    server = await startTestServer({
      smtpUrl: mailbox.url,
      smtpFrom: 'Tessera Reports <reports@tessera.test>',
      publicUrl: 'https://tessera.example.com',
    });
    board = await publishNotificationBoard(server);
    api = notificationsApi(server);
    mkdirSync(outDir, { recursive: true });
  });
  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
  });
  // Every test ticks its own clock: what earlier tests scheduled must not fire into a later one.
  afterEach(async () => {
    await sql`update notifications set is_enabled = false, next_fire_at = null`.execute(server.store.db);
    await sql`update notification_runs set state = 'failed' where state in ('pending', 'running')`.execute(
      server.store.db,
    );
  });

  /** A notification whose next fire time is answered, with recipients added. */
  async function due(body: Record<string, unknown>, recipients: Record<string, unknown>[]) {
    const n = await api.create({ dashboardId: board.dashboardId, ...body });
    const added = recipients.length > 0 ? await api.addRecipients(n.id, recipients) : null;
    return { n, at: new Date(n.nextFireAt), added };
  }

  it('mails a PNG, inline and attached, with a link, once per recipient, and logs the run', async () => {
    const reader = await userWithKey(server, 'viewer');
    const { n, at } = await due({ scheduleType: 'HOURLY', minute: 0 }, [
      { type: 'USER', userId: reader.user.id },
      { type: 'EMAIL', email: 'boss@example.com', username: 'The Boss' },
    ]);
    const start = mailbox.messages.length;
    expect(await tick(new Date(at.getTime() - 1000))).toEqual({ planned: 0, runs: 0 });
    expect(await tick(at)).toEqual({ planned: 1, runs: 1 });
    const mails = (await mailbox.waitFor(start + 2)).slice(start);
    expect(mails.map((m) => m.to && 'text' in m.to && m.to.text).sort()).toEqual(
      [reader.user.email, '"The Boss" <boss@example.com>'].sort(),
    );
    for (const mail of mails) {
      expect(mail.subject).toMatch(/^Order report \(/);
      expect(mail.from?.text).toBe('"Tessera Reports" <reports@tessera.test>');
      expect(mail.html).toContain(`https://tessera.example.com/dashboards/${board.publicId}`);
      expect(mail.text).toContain(`https://tessera.example.com/dashboards/${board.publicId}`);
      expect(mail.html).toContain('cid:dashboard@tessera');
      const inline = mail.attachments.find((a) => a.cid === 'dashboard@tessera');
      const attached = mail.attachments.find((a) => a.filename === 'dashboard.png');
      expect(inline?.contentType).toBe('image/png');
      expect(attached?.contentType).toBe('image/png');
      const bytes = attached?.content as Buffer;
      expect(bytes.subarray(0, 8)).toEqual(pngMagic);
      const png = PNG.sync.read(bytes);
      expect(png.width).toBe(1200);
      expect(png.height).toBeGreaterThan(300);
      expect(mail.headers.get('x-tessera-notification')).toBe(String(n.id));
    }
    writeFileSync(
      path.join(outDir, 'notification.png'),
      mails[0].attachments.find((a) => a.filename === 'dashboard.png')?.content as Buffer,
    );

    // The same moment again, or a replica's pass a second later, sends nothing more.
    expect(await tick(at)).toEqual({ planned: 0, runs: 0 });
    expect(await tick(new Date(at.getTime() + 1000))).toEqual({ planned: 0, runs: 0 });
    expect(mailbox.messages.length).toBe(start + 2);

    const log = await api.runs(n.id);
    expect(log.items).toHaveLength(1);
    expect(log.items[0]).toMatchObject({
      fireTime: at.toISOString(),
      state: 'succeeded',
      attempts: 1,
      error: null,
      failedWidgets: [],
    });
    expect(
      log.items[0].deliveries.map((d: { state: string; attempts: number }) => [d.state, d.attempts]),
    ).toEqual([
      ['sent', 1],
      ['sent', 1],
    ]);
    const next = await api.ok('GET', `/${n.id}`);
    expect(new Date(next.nextFireAt).getTime()).toBe(at.getTime() + 3600_000);
  });

  it('renders a PDF with its filters applied and its text extractable', async () => {
    const { n, at } = await due(
      {
        scheduleType: 'DAILY',
        hour: 6,
        timezone: 'Europe/Berlin',
        notificationFormat: 'pdf',
        filters: [{ member: 'orders.status', operator: 'equals', value: 'cancelled' }],
      },
      [{ type: 'EMAIL', email: 'pdf@example.com' }],
    );
    const start = mailbox.messages.length;
    await tick(at);
    const [mail] = (await mailbox.waitFor(start + 1)).slice(start);
    const pdf = mail.attachments.find((a) => a.filename === 'dashboard.pdf');
    expect(pdf?.contentType).toBe('application/pdf');
    const bytes = pdf?.content as Buffer;
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    writeFileSync(path.join(outDir, 'notification.pdf'), bytes);
    // The inline preview of a PDF notification is a PNG of the same render.
    expect(
      (mail.attachments.find((a) => a.cid === 'dashboard@tessera')?.content as Buffer).subarray(0, 8),
    ).toEqual(pngMagic);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true });
    expect(text).toContain('Order report');
    expect(text).toContain('Orders by status');
    expect(text).toContain('Figures from the sample data');
    // The filter reached the queries: only cancelled orders are on the status chart.
    expect(text).toContain('cancelled');
    expect(text).not.toContain('shipped');
    expect((await api.runs(n.id)).items[0].state).toBe('succeeded');
  });

  it('marks a run partly failed when a widget cannot be shown, and draws the error in its tile', async () => {
    const { n, at } = await due(
      {
        scheduleType: 'DAILY',
        hour: 7,
        notificationFormat: 'pdf',
        filters: [{ member: 'orders.nope', operator: 'equals', value: 'x' }],
      },
      [{ type: 'EMAIL', email: 'partial@example.com' }],
    );
    const start = mailbox.messages.length;
    await tick(at);
    const [mail] = (await mailbox.waitFor(start + 1)).slice(start);
    const [run] = (await api.runs(n.id)).items;
    expect(run.state).toBe('partially_failed');
    expect(run.failedWidgets.map((w: { id: string }) => w.id).sort()).toEqual(['status', 'total', 'yearly']);
    expect(run.failedWidgets[0].error).toContain('orders.nope');
    expect(run.deliveries[0].state).toBe('sent');
    expect(mail.text).toContain('3 widget(s) could not be shown');
    const pdf = mail.attachments.find((a) => a.filename === 'dashboard.pdf')?.content as Buffer;
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true });
    expect(text).toContain('This widget could not be shown');
  });

  it('posts to a webhook with a valid HMAC signature, retrying a failed attempt with backoff', async () => {
    const hooks = await startHookReceiver((i) => (i === 0 ? 503 : 200));
    try {
      const { n, at, added } = await due({ scheduleType: 'DAILY', hour: 8 }, [
        { type: 'WEBHOOK', url: hooks.url },
      ]);
      const secret = added.createdRecipients[0].secret as string;
      await tick(at);
      expect(hooks.attempts()).toBe(1);
      let [run] = (await api.runs(n.id)).items;
      expect(run.state).toBe('pending');
      expect(run.deliveries[0]).toMatchObject({
        state: 'pending',
        attempts: 1,
        error: 'Webhook: the endpoint answered 503',
      });
      const retryAt = new Date(run.nextAttemptAt);
      expect(retryAt.getTime() - at.getTime()).toBe(
        server.services.notifications.scheduler.options.backoffMs,
      );

      await tick(new Date(retryAt.getTime() - 1000));
      expect(hooks.attempts()).toBe(1);
      await tick(retryAt);
      expect(hooks.attempts()).toBe(2);
      [run] = (await api.runs(n.id)).items;
      expect(run.state).toBe('succeeded');
      expect(run.deliveries[0]).toMatchObject({ state: 'sent', attempts: 2, error: null });

      const [hook] = hooks.received;
      const header = String(hook.headers['tessera-signature']);
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) ?? [];
      expect(v1).toBe(webhookSignature(secret, Number(t), hook.body));
      expect(hook.headers['tessera-timestamp']).toBe(t);
      expect(v1).not.toBe(webhookSignature('another secret!!', Number(t), hook.body));
      const payload = JSON.parse(hook.body);
      expect(payload).toMatchObject({
        type: 'notification.delivered',
        notificationId: n.id,
        dashboardPublicId: board.publicId,
        fireTime: at.toISOString(),
        format: 'png',
        contentType: 'image/png',
        title: 'Order report',
      });
      expect(hook.headers['tessera-delivery']).toBe(payload.deliveryId);
      const file = Buffer.from(payload.file, 'base64');
      expect(PNG.sync.read(file).width).toBe(1200);
    } finally {
      await hooks.close();
    }
  });

  it('retries a temporary SMTP refusal and delivers once', async () => {
    const { n, at } = await due({ scheduleType: 'DAILY', hour: 9 }, [
      { type: 'EMAIL', email: 'later@example.com' },
    ]);
    const start = mailbox.messages.length;
    mailbox.refuseNext(1);
    await tick(at);
    let [run] = (await api.runs(n.id)).items;
    expect(run.deliveries[0]).toMatchObject({ state: 'pending', attempts: 1 });
    expect(run.deliveries[0].error).toMatch(/^SMTP: .*451/);
    await tick(new Date(run.nextAttemptAt));
    await mailbox.waitFor(start + 1);
    [run] = (await api.runs(n.id)).items;
    expect(run).toMatchObject({ state: 'succeeded' });
    expect(run.deliveries[0]).toMatchObject({ state: 'sent', attempts: 2 });
    expect(mailbox.messages.length).toBe(start + 1);
  });

  it('takes over a run whose replica died mid-delivery once its lease passes, sending each mail once', async () => {
    const { n, at } = await due({ scheduleType: 'DAILY', hour: 10 }, [
      { type: 'EMAIL', email: 'crash-a@example.com' },
      { type: 'EMAIL', email: 'crash-b@example.com' },
      { type: 'EMAIL', email: 'crash-c@example.com' },
    ]);
    const scheduler = server.services.notifications.scheduler;
    const runs = server.services.notifications.runsRepository;
    // The dead replica: it planned the run, claimed it, recorded one send, and was in the middle of another.
    await scheduler.plan(at);
    const [claimed] = await runs.claim(
      at,
      new Date(at.getTime() + scheduler.options.leaseMs),
      'dead-replica',
      10,
    );
    expect(claimed.notification_id).toBe(n.id);
    const recipients = await server.store.db
      .selectFrom('notification_recipients')
      .selectAll()
      .where('notification_id', '=', n.id)
      .orderBy('id')
      .execute();
    await runs.planDeliveries(
      recipients.map((r) => ({
        run_id: claimed.id,
        recipient_key: r.recipient_key,
        recipient_id: r.id,
        type: r.type,
        address: r.email as string,
        next_attempt_at: at,
      })),
    );
    const lease = new Date(at.getTime() + scheduler.options.leaseMs);
    expect(await runs.claimDelivery(claimed.id, recipients[0].recipient_key, at, lease)).toBe(true);
    await runs.delivered(claimed.id, recipients[0].recipient_key, at);
    expect(await runs.claimDelivery(claimed.id, recipients[1].recipient_key, at, lease)).toBe(true);

    const start = mailbox.messages.length;
    // Before the lease passes, no one touches it.
    expect((await tick(new Date(at.getTime() + 60_000))).runs).toBe(0);
    expect(mailbox.messages.length).toBe(start);
    expect((await tick(new Date(lease.getTime() + 1000))).runs).toBe(1);
    await mailbox.waitFor(start + 2);
    expect(mailbox.envelopes.slice(start).flat().sort()).toEqual([
      'crash-b@example.com',
      'crash-c@example.com',
    ]);
    const [run] = (await api.runs(n.id)).items;
    expect(run).toMatchObject({ state: 'succeeded', attempts: 2 });
    expect(run.deliveries.map((d: { state: string; attempts: number }) => [d.state, d.attempts])).toEqual([
      ['sent', 1],
      ['sent', 2],
      ['sent', 1],
    ]);
  });

  it('catches up once after downtime: the latest missed fire time, not one per missed hour', async () => {
    const { n, at } = await due({ scheduleType: 'HOURLY', minute: 30 }, [
      { type: 'EMAIL', email: 'catchup@example.com' },
    ]);
    const start = mailbox.messages.length;
    // Down for five hours and a quarter: five fire times passed.
    const back = new Date(at.getTime() + 4 * 3600_000 + 15 * 60_000);
    expect(await tick(back)).toEqual({ planned: 1, runs: 1 });
    await mailbox.waitFor(start + 1);
    const log = await api.runs(n.id);
    expect(log.items.map((r: { fireTime: string }) => r.fireTime)).toEqual([
      new Date(at.getTime() + 4 * 3600_000).toISOString(),
    ]);
    expect((await api.ok('GET', `/${n.id}`)).nextFireAt).toBe(
      new Date(at.getTime() + 5 * 3600_000).toISOString(),
    );
    expect(await tick(back)).toEqual({ planned: 0, runs: 0 });
    expect(mailbox.messages.length).toBe(start + 1);
  });

  it('renders an embed user recipient under its own security context', async () => {
    await server.app.inject({
      method: 'PATCH',
      url: `/api/v1/embed/dashboard/${board.publicId}`,
      headers: { authorization: `Bearer ${server.adminKey}` },
      payload: { allowEmbed: true },
    });
    const { n, at } = await due({ scheduleType: 'DAILY', hour: 11 }, [
      { type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'eve@acme.example' },
    ]);
    const start = mailbox.messages.length;
    await tick(at);
    await mailbox.waitFor(start + 1);
    expect(mailbox.envelopes[start]).toEqual(['eve@acme.example']);
    expect((await api.runs(n.id)).items[0].state).toBe('succeeded');
  });

  it('fails visibly in the run log when no SMTP server is configured', async () => {
    const bare = await startTestServer();
    try {
      const own = await publishNotificationBoard(bare);
      const local = notificationsApi(bare);
      const n = await local.create({ scheduleType: 'DAILY', hour: 5, dashboardId: own.dashboardId });
      await local.addRecipients(n.id, [{ type: 'EMAIL', email: 'nobody@example.com' }]);
      await bare.services.notifications.scheduler.tick(new Date(n.nextFireAt));
      const [run] = (await local.runs(n.id)).items;
      expect(run).toMatchObject({ state: 'failed' });
      expect(run.error).toContain('TESSERA_SMTP_URL');
      expect(run.deliveries[0]).toMatchObject({ state: 'failed', attempts: 1 });
    } finally {
      await bare.close();
    }
  });

  it('sends now on request, outside the schedule', async () => {
    const { n } = await due({ scheduleType: 'MONTHLY', dayOfMonth: 1 }, [
      { type: 'EMAIL', email: 'now@example.com' },
    ]);
    const start = mailbox.messages.length;
    const { run } = await api.ok('POST', `/${n.id}/runs`);
    expect(run.state).toBe('pending');
    await tick(new Date());
    await mailbox.waitFor(start + 1);
    expect((await api.runs(n.id)).items[0]).toMatchObject({ id: run.id, state: 'succeeded' });
  });

  it('does not send to a recipient removed after the run was planned', async () => {
    const { n, at } = await due({ scheduleType: 'DAILY', hour: 12 }, [
      { type: 'EMAIL', email: 'stays@example.com' },
      { type: 'EMAIL', email: 'leaves@example.com' },
    ]);
    // A replica planned the run and its deliveries, then died with an expired claim.
    const runs = server.services.notifications.runsRepository;
    await server.services.notifications.scheduler.plan(at);
    const [claimed] = await runs.claim(at, at, 'dead-replica', 10);
    expect(claimed.notification_id).toBe(n.id);
    const recipients = await server.store.db
      .selectFrom('notification_recipients')
      .selectAll()
      .where('notification_id', '=', n.id)
      .execute();
    await runs.planDeliveries(
      recipients.map((r) => ({
        run_id: claimed.id,
        recipient_key: r.recipient_key,
        recipient_id: r.id,
        type: r.type,
        address: r.email as string,
        next_attempt_at: at,
      })),
    );
    await api.call('DELETE', `/${n.id}/recipients`, {
      recipients: [{ type: 'EMAIL', id: 'leaves@example.com' }],
    });
    const start = mailbox.messages.length;
    await tick(new Date(at.getTime() + 1000));
    await mailbox.waitFor(start + 1);
    expect(mailbox.envelopes.slice(start)).toEqual([['stays@example.com']]);
    const [run] = (await api.runs(n.id)).items;
    expect(run.state).toBe('partially_failed');
    expect(run.deliveries.find((d: { address: string }) => d.address === 'leaves@example.com')).toMatchObject(
      {
        state: 'failed',
        error: 'The recipient was removed before delivery',
      },
    );
  });
});

describe('the scheduler in a running server', () => {
  it('starts with the server, delivers on its own, and stops when the server closes', async () => {
    const mailbox = await startMailbox();
    const server = await startTestServer({
      smtpUrl: mailbox.url,
      scheduler: { disabled: false, intervalMs: 1000, concurrency: 2 },
    });
    try {
      expect(server.services.notifications.scheduler.started).toBe(true);
      const board = await publishNotificationBoard(server);
      const api = notificationsApi(server);
      const n = await api.create({ scheduleType: 'DAILY', dashboardId: board.dashboardId });
      await api.addRecipients(n.id, [{ type: 'EMAIL', email: 'live@example.com' }]);
      await api.ok('POST', `/${n.id}/runs`);
      await mailbox.waitFor(1, 30_000);
      expect(mailbox.envelopes[0]).toEqual(['live@example.com']);
    } finally {
      await server.close();
      await mailbox.close();
    }
    expect(server.services.notifications.scheduler.started).toBe(false);
  });
});
