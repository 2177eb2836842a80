import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplica, startTestServer, type TestServer } from '../../../test/harness.ts';
import { webhookSignature } from '../notifications/signed-webhook.ts';
import { startHookReceiver, startMailbox } from '../notifications/test-support.ts';
import { alertsApi, type MetricRow, metricsDeployment } from './test-support.ts';

/**
 * Alerts through the notifications' channels, with retry (issue 23 item 6, "delivered through the
 * same channels"): a real HTTP receiver on loopback for webhook recipients, and a real SMTP
 * server (smtp-server) that the test takes down and brings back. The checker's passes are driven
 * with tick() at times past each retry's backoff. Alerts here are disabled (no schedule of their
 * own): they are checked with POST .../check, and a pass only resends what is due.
 */
describe('alert channels and retries', () => {
  let server: TestServer;
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;
  let metrics: Awaited<ReturnType<typeof metricsDeployment>>;
  let api: ReturnType<typeof alertsApi>;
  const secret = 'alert-hook-secret-0123456789';

  beforeAll(async () => {
    mailbox = await startMailbox({ closeTimeoutMs: 50 });
    server = await startTestServer({
      smtpUrl: mailbox.url,
      smtpFrom: 'Tessera Alerts <alerts@tessera.test>',
    });
    metrics = await metricsDeployment(server);
    api = alertsApi(server, metrics.deploymentId);
  });
  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
  });

  const rows = (north: number, south: number): MetricRow[] => [
    ['2026-03-02', 'north', north],
    ['2026-03-02', 'south', south],
  ];
  const alertTo = (recipients: unknown[], name = 'Total above 100') => ({
    name,
    query: { measure: 'metrics.total' },
    condition: { type: 'above', threshold: 100 },
    scheduleType: 'HOURLY',
    minute: 0,
    isEnabled: false,
    recipients,
  });
  /** A checker pass `minutes` from now: past every retry due by then. */
  const passIn = (minutes: number) =>
    server.services.alertChecker.tick(new Date(Date.now() + minutes * 60_000));
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

  it('posts one signed JSON per crossing to a webhook recipient, and none while the condition holds', async () => {
    const hooks = await startHookReceiver();
    try {
      metrics.write(rows(20, 30));
      const alert = await api.create(alertTo([{ url: hooks.url, secret }]));
      expect(alert.recipients).toEqual([{ userId: null, email: null, url: hooks.url }]);
      expect((await api.check(alert.id)).results[0]).toMatchObject({ conditionMet: false, fired: false });

      metrics.write(rows(80, 40));
      const crossed = await api.check(alert.id);
      expect(crossed.results[0]).toMatchObject({
        recipient: { url: hooks.url },
        value: 120,
        fired: true,
        delivery: 'sent',
        nextAttemptAt: null,
        attempts: [expect.objectContaining({ attempt: 1, outcome: 'sent', error: null, retryAt: null })],
      });
      expect(hooks.received).toHaveLength(1);
      const [hook] = hooks.received;
      const body = JSON.parse(hook.body);
      expect(body).toMatchObject({
        type: 'alert.fired',
        alertId: alert.id,
        alertName: 'Total above 100',
        deploymentId: metrics.deploymentId,
        checkId: crossed.id,
        measure: 'metrics.total',
        value: 120,
        previousValue: null,
        condition: { type: 'above', threshold: 100 },
        conditionText: 'above 100',
        checkedAt: crossed.createdAt,
      });
      expect(typeof body.url).toBe('string');
      expect(hook.headers['tessera-delivery']).toBe(body.deliveryId);
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hook.headers['tessera-signature'])) ?? [];
      expect(v1).toBe(webhookSignature(secret, Number(t), hook.body));
      expect(hook.body).not.toContain(secret);

      // Still across: a check, and passes of the checker, send nothing more.
      metrics.write(rows(90, 60));
      expect((await api.check(alert.id)).results[0]).toMatchObject({ conditionMet: true, fired: false });
      await passIn(5);
      await passIn(120);
      await settle();
      expect(hooks.attempts()).toBe(1);

      // Back below and over again: a new crossing, a new delivery id.
      metrics.write(rows(10, 10));
      await api.check(alert.id);
      metrics.write(rows(100, 100));
      expect((await api.check(alert.id)).results[0]).toMatchObject({
        value: 200,
        fired: true,
        delivery: 'sent',
      });
      expect(hooks.received).toHaveLength(2);
      const second = JSON.parse(hooks.received[1].body);
      expect(second.deliveryId).not.toBe(body.deliveryId);
      expect(second.value).toBe(200);
    } finally {
      await hooks.close();
    }
  });

  it('a webhook that answers 503 and then recovers gets exactly one delivery, even with two replicas retrying', async () => {
    const hooks = await startHookReceiver((i) => (i === 0 ? 503 : 200));
    const replica = await startReplica(server);
    try {
      metrics.write(rows(20, 30));
      const alert = await api.create(alertTo([{ url: hooks.url, secret }], 'Retried'));
      await api.check(alert.id);
      metrics.write(rows(150, 0));
      const crossed = await api.check(alert.id);
      expect(crossed.results[0]).toMatchObject({
        fired: true,
        delivery: 'retrying',
        error: 'Webhook: the endpoint answered 503',
        attempts: [
          expect.objectContaining({
            attempt: 1,
            outcome: 'failed',
            error: 'Webhook: the endpoint answered 503',
          }),
        ],
      });
      const retryAt = Date.parse(crossed.results[0].nextAttemptAt);
      expect(crossed.results[0].attempts[0].retryAt).toBe(crossed.results[0].nextAttemptAt);
      // The first retry waits its backoff (30 s): a pass before then sends nothing.
      expect(retryAt - Date.now()).toBeGreaterThan(20_000);
      await server.services.alertChecker.tick(new Date(retryAt - 5_000));
      expect(hooks.attempts()).toBe(1);

      // Still holding at a later check: the crossing is the same one, nothing new fires.
      expect((await api.check(alert.id)).results[0]).toMatchObject({ conditionMet: true, fired: false });

      // Two replicas' passes at once after the backoff: one of them sends it.
      const at = new Date(retryAt + 1_000);
      await Promise.all([server.services.alertChecker.tick(at), replica.services.alertChecker.tick(at)]);
      await passIn(240);
      await settle();
      expect(hooks.attempts()).toBe(2);
      expect(hooks.received).toHaveLength(1);
      expect(JSON.parse(hooks.received[0].body)).toMatchObject({ alertId: alert.id, value: 150 });

      const log = (await api.checks(alert.id)).items.find((c: { id: number }) => c.id === crossed.id);
      expect(log.results[0]).toMatchObject({
        delivery: 'sent',
        error: null,
        nextAttemptAt: null,
        attempts: [
          expect.objectContaining({ attempt: 1, outcome: 'failed' }),
          expect.objectContaining({ attempt: 2, outcome: 'sent', error: null, retryAt: null }),
        ],
      });
    } finally {
      await replica.close();
      await hooks.close();
    }
  });

  it('a 4xx answer is recorded and never retried; a retryable failure stops at the attempt bound', async () => {
    const gone = await startHookReceiver(() => 410);
    const down = await startHookReceiver(() => 503);
    try {
      metrics.write(rows(0, 0));
      const refused = await api.create(alertTo([{ url: gone.url, secret }], 'Refused'));
      const failing = await api.create(alertTo([{ url: down.url, secret }], 'Failing'));
      await api.check(refused.id);
      await api.check(failing.id);
      metrics.write(rows(500, 0));
      expect((await api.check(refused.id)).results[0]).toMatchObject({
        fired: true,
        delivery: 'failed',
        error: 'Webhook: the endpoint answered 410',
        nextAttemptAt: null,
        attempts: [expect.objectContaining({ attempt: 1, outcome: 'failed', retryAt: null })],
      });
      const check = await api.check(failing.id);
      expect(check.results[0]).toMatchObject({ delivery: 'retrying' });
      // Passes far enough apart for every backoff (30 s doubling): five attempts in all, then failed.
      for (let hour = 1; hour <= 7; hour++) await passIn(hour * 60);
      await settle();
      expect(gone.attempts()).toBe(1);
      expect(down.attempts()).toBe(server.services.alertChecker.options.deliveryAttempts);
      const log = (await api.checks(failing.id)).items.find((c: { id: number }) => c.id === check.id);
      expect(log.results[0]).toMatchObject({ delivery: 'failed', nextAttemptAt: null });
      expect(log.results[0].attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
      expect(log.results[0].attempts.at(-1)).toMatchObject({ outcome: 'failed', retryAt: null });
    } finally {
      await gone.close();
      await down.close();
    }
  });

  it('an SMTP server that is down and then up again delivers exactly one mail', async () => {
    const port = mailbox.port;
    metrics.write(rows(0, 0));
    const alert = await api.create(alertTo([{ email: 'oncall@example.com' }], 'Mailed after a retry'));
    await api.check(alert.id);
    await mailbox.close();
    metrics.write(rows(300, 0));
    const crossed = await api.check(alert.id);
    expect(crossed.results[0]).toMatchObject({ fired: true, delivery: 'retrying' });
    expect(crossed.results[0].error).toMatch(/^SMTP: /);

    mailbox = await startMailbox({ port, closeTimeoutMs: 50 });
    await passIn(5);
    await mailbox.waitFor(1);
    await passIn(60);
    expect((await api.check(alert.id)).results[0]).toMatchObject({ conditionMet: true, fired: false });
    await settle();
    expect(mailbox.envelopes).toEqual([['oncall@example.com']]);
    expect(mailbox.messages[0].subject).toBe('Alert: Mailed after a retry');
    const log = (await api.checks(alert.id)).items.find((c: { id: number }) => c.id === crossed.id);
    expect(log.results[0]).toMatchObject({ delivery: 'sent' });
    expect(log.results[0].attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['failed', 'sent']);
  });

  it('refuses a bad webhook recipient with 400 naming the field, and changes nothing', async () => {
    const before = (await api.ok('GET', '?first=1000')).items.length;
    const cases: [unknown[], Record<string, unknown>, string][] = [
      [[{ url: 'not a url', secret }], {}, 'body/recipients/0/url'],
      [[{ url: 'ftp://example.com/hook', secret }], {}, 'body/recipients/0/url'],
      [[{ url: 'https://user:pass@example.com/hook', secret }], {}, 'body/recipients/0/url'],
      [[{ email: 'a@example.com' }, { url: 'https://example.com/hook' }], {}, 'body/recipients/1/secret'],
      [[{ url: 'https://example.com/hook', secret: 'short' }], {}, 'body/recipients/0/secret'],
      [[{ url: 'https://example.com/hook', email: 'a@example.com', secret }], {}, 'body/recipients/0'],
      [[{ email: 'a@example.com', secret }], {}, 'body/recipients/0/secret'],
      [
        [{ url: 'https://example.com/hook', secret }],
        { securityContext: 'recipient' },
        'body/recipients/0/url',
      ],
    ];
    for (const [recipients, extra, field] of cases) {
      const res = await api.call('POST', '', { ...alertTo(recipients), ...extra });
      expect(res.status, JSON.stringify(recipients)).toBe(400);
      expect(
        (res.body.errors as { field: string }[]).map((e) => e.field),
        JSON.stringify(res.body),
      ).toContain(field);
      expect(JSON.stringify(res.body)).not.toContain(secret);
    }
    expect((await api.ok('GET', '?first=1000')).items.length).toBe(before);

    // On update too: the alert stays as it was.
    const alert = await api.create(alertTo([{ url: 'https://example.com/kept', secret }], 'Kept'));
    const bad = await api.call('PUT', `/${alert.id}`, {
      recipients: [{ url: 'mailto:x@example.com', secret }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain('body/recipients/0/url');
    expect((await api.ok('GET', `/${alert.id}`)).recipients).toEqual([
      { userId: null, email: null, url: 'https://example.com/kept' },
    ]);
  });

  it('never returns the secret, stores it sealed, and keeps it when the URL is named again without it', async () => {
    const hooks = await startHookReceiver();
    try {
      metrics.write(rows(0, 0));
      const created = await server.app.inject({
        method: 'POST',
        url: `/api/v1/deployments/${metrics.deploymentId}/alerts`,
        headers: { authorization: `Bearer ${server.adminKey}` },
        payload: alertTo([{ url: hooks.url, secret }], 'Sealed'),
      });
      expect(created.statusCode).toBe(200);
      expect(created.body).not.toContain(secret);
      const id = created.json().id;
      const stored = await server.store.db
        .selectFrom('alert_recipients')
        .select(['webhook_url', 'webhook_secret_sealed'])
        .where('alert_id', '=', id)
        .executeTakeFirstOrThrow();
      expect(stored.webhook_url).toBe(hooks.url);
      expect(stored.webhook_secret_sealed).not.toContain(secret);

      // A rename with the recipients named again by URL only: the secret is kept.
      const renamed = await api.call('PUT', `/${id}`, {
        name: 'Sealed, renamed',
        recipients: [{ url: hooks.url }],
      });
      expect(renamed.status).toBe(200);
      await api.check(id);
      metrics.write(rows(1000, 0));
      await api.check(id);
      const hook = hooks.received[0];
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(hook.headers['tessera-signature'])) ?? [];
      expect(v1).toBe(webhookSignature(secret, Number(t), hook.body));

      const reads = [
        await api.call('GET', `/${id}`),
        await api.call('GET', '?first=1000'),
        await api.call('GET', `/${id}/checks?first=100`),
        renamed,
        await api.call('POST', `/${id}/check`),
        await server.app
          .inject({
            method: 'GET',
            url: '/api/v1/audit-log',
            headers: { authorization: `Bearer ${server.adminKey}` },
          })
          .then((r) => ({ status: r.statusCode, body: r.json() })),
      ];
      for (const r of reads) {
        expect(r.status).toBe(200);
        expect(JSON.stringify(r.body)).not.toContain(secret);
      }
    } finally {
      await hooks.close();
    }
  });
});
