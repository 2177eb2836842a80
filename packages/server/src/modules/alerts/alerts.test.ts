import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  bearer,
  startReplica,
  startTestServer,
  type TestServer,
  userWithKey,
} from '../../../test/harness.ts';
import { startMailbox } from '../notifications/test-support.ts';
import { alertsApi, type MetricRow, metricsDeployment } from './test-support.ts';

/**
 * Alerts on measures end to end (issue 23 item 6): a real store, a DuckDB deployment whose rows
 * the test rewrites between checks, the data API's own query path (row-level policies included),
 * and a real SMTP server in this process (smtp-server, read back with mailparser).
 */
describe('alerts on measures', () => {
  let server: TestServer;
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;
  let metrics: Awaited<ReturnType<typeof metricsDeployment>>;
  let api: ReturnType<typeof alertsApi>;

  beforeAll(async () => {
    mailbox = await startMailbox();
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
  let sent = 0;
  beforeEach(() => {
    sent = mailbox.messages.length;
  });
  /** The mails received since the test began. */
  const newMail = () => mailbox.messages.slice(sent);
  const rows = (north: number, south: number, day = '2026-03-02'): MetricRow[] => [
    [day, 'north', north],
    [day, 'south', south],
  ];

  const above = (threshold: number, extra: Record<string, unknown> = {}) => ({
    name: `Total above ${threshold}`,
    query: { measure: 'metrics.total' },
    condition: { type: 'above', threshold },
    scheduleType: 'HOURLY',
    minute: 0,
    recipients: [{ email: 'ops@example.com' }],
    ...extra,
  });

  it('mails once per crossing: not again while across, again after crossing back and over', async () => {
    metrics.write(rows(20, 30));
    const alert = await api.create(above(100));
    expect(alert).toMatchObject({
      securityContext: 'owner',
      isEnabled: true,
      recipients: [{ email: 'ops@example.com' }],
    });

    const below = await api.check(alert.id);
    expect(below).toMatchObject({ state: 'done', trigger: 'manual' });
    expect(below.results).toEqual([
      expect.objectContaining({ value: 50, conditionMet: false, fired: false, delivery: 'none' }),
    ]);

    metrics.write(rows(80, 40));
    const crossed = await api.check(alert.id);
    expect(crossed.results[0]).toMatchObject({
      value: 120,
      conditionMet: true,
      fired: true,
      delivery: 'sent',
    });
    const [mail] = await mailbox.waitFor(sent + 1);
    expect(newMail()).toHaveLength(1);
    expect(mailbox.messages[sent].subject).toBe('Alert: Total above 100');
    expect(mailbox.messages[sent].text).toContain('metrics.total is 120: above 100.');
    expect(mailbox.envelopes[sent]).toEqual(['ops@example.com']);
    expect(mail).toBeDefined();

    // Still across, by the schedule this time: the check runs and logs, and sends nothing.
    metrics.write(rows(90, 60));
    const at = new Date(alert.nextCheckAt);
    expect(await server.services.alertChecker.tick(at)).toEqual({ planned: 1, checks: 1 });
    const log = await api.checks(alert.id);
    expect(log.items[0]).toMatchObject({ trigger: 'schedule', fireTime: at.toISOString(), state: 'done' });
    expect(log.items[0].results[0]).toMatchObject({
      value: 150,
      conditionMet: true,
      fired: false,
      delivery: 'none',
    });
    // A second pass at the same time plans nothing: one check per fire time.
    expect(await server.services.alertChecker.tick(at)).toEqual({ planned: 0, checks: 0 });

    metrics.write(rows(10, 10));
    expect((await api.check(alert.id)).results[0]).toMatchObject({
      value: 20,
      conditionMet: false,
      fired: false,
    });
    metrics.write(rows(100, 100));
    expect((await api.check(alert.id)).results[0]).toMatchObject({
      value: 200,
      fired: true,
      delivery: 'sent',
    });
    await mailbox.waitFor(sent + 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(newMail().map((m) => m.text?.match(/is (\d+)/)?.[1])).toEqual(['120', '200']);
    expect((await api.checks(alert.id)).items).toHaveLength(5);
  });

  it('changeBy compares the latest period with the one before it', async () => {
    metrics.write([
      ['2026-01-10', 'north', 40],
      ['2026-01-20', 'south', 60],
      ['2026-02-05', 'north', 70],
      ['2026-02-06', 'south', 60],
    ]);
    const monthly = (percent: number) => ({
      name: `Monthly total moves ${percent}%`,
      query: { measure: 'metrics.total', timeDimension: { dimension: 'metrics.day', granularity: 'month' } },
      condition: { type: 'changeBy', percent },
      scheduleType: 'DAILY',
      hour: 7,
      timezone: 'Europe/Berlin',
      recipients: [{ email: 'finance@example.com' }],
    });
    const loose = await api.create(monthly(25));
    const strict = await api.create(monthly(50));
    const fired = await api.check(loose.id);
    expect(fired.results[0]).toMatchObject({
      value: 130,
      previousValue: 100,
      conditionMet: true,
      fired: true,
      delivery: 'sent',
    });
    const quiet = await api.check(strict.id);
    expect(quiet.results[0]).toMatchObject({
      value: 130,
      previousValue: 100,
      conditionMet: false,
      fired: false,
    });
    const [mail] = (await mailbox.waitFor(sent + 1)).slice(sent);
    expect(mail.text).toContain(
      'metrics.total is 130 (previous month: 100): changed by more than 25% against the previous month.',
    );

    // A drop counts as a change too; March follows February (70 + 60 = 130 -> 30).
    metrics.write([
      ['2026-02-05', 'north', 70],
      ['2026-02-06', 'south', 60],
      ['2026-03-01', 'north', 30],
    ]);
    expect((await api.check(strict.id)).results[0]).toMatchObject({
      value: 30,
      previousValue: 130,
      fired: true,
    });
    // With no row for the month before, there is nothing to compare with.
    metrics.write([['2026-05-01', 'north', 500]]);
    expect((await api.check(strict.id)).results[0]).toMatchObject({
      value: 500,
      previousValue: null,
      conditionMet: false,
    });
  });

  it("under the recipient's security context each recipient reads their own rows, with their own state", async () => {
    const attribute = await server.app.inject({
      method: 'POST',
      url: '/api/v1/user-attributes',
      headers: bearer(server.adminKey),
      payload: { name: 'region', type: 'string' },
    });
    expect(attribute.statusCode, attribute.body).toBe(200);
    const person = async (region: string) => {
      const { user } = await userWithKey(server, 'viewer');
      const set = await server.app.inject({
        method: 'POST',
        url: '/api/v1/user-attribute-values',
        headers: bearer(server.adminKey),
        payload: { userId: String(user.id), userAttributeId: String(attribute.json().id), value: region },
      });
      expect(set.statusCode, set.body).toBe(200);
      return user as { id: number; email: string };
    };
    const north = await person('north');
    const south = await person('south');
    metrics.write(rows(150, 50));
    const alert = await api.create(
      above(100, {
        securityContext: 'recipient',
        recipients: [{ userId: north.id }, { email: south.email }],
      }),
    );
    expect(alert.recipients).toEqual(
      expect.arrayContaining([
        { userId: north.id, email: null },
        { userId: south.id, email: null },
      ]),
    );
    const first = await api.check(alert.id);
    const byUser = (check: { results: { recipient: { userId: number } }[] }, id: number) =>
      check.results.find((r) => r.recipient.userId === id);
    expect(byUser(first, north.id)).toMatchObject({
      value: 150,
      conditionMet: true,
      fired: true,
      delivery: 'sent',
    });
    expect(byUser(first, south.id)).toMatchObject({
      value: 50,
      conditionMet: false,
      fired: false,
      delivery: 'none',
    });
    await mailbox.waitFor(sent + 1);

    // South crosses; north stays across: only south hears.
    metrics.write(rows(160, 120));
    const second = await api.check(alert.id);
    expect(byUser(second, north.id)).toMatchObject({ value: 160, fired: false });
    expect(byUser(second, south.id)).toMatchObject({ value: 120, fired: true, delivery: 'sent' });
    await mailbox.waitFor(sent + 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mailbox.envelopes.slice(sent)).toEqual([[north.email], [south.email]]);
  });

  it('refuses bad input with 400 naming each field, and creates nothing', async () => {
    const before = (await api.ok('GET', '?first=1000')).items.length;
    const cases: [Record<string, unknown>, string[]][] = [
      [above(100, { query: { measure: 'metrics.nope' } }), ['body/query/measure']],
      [
        above(100, {
          query: {
            measure: 'metrics.total',
            filters: [{ member: 'metrics.colour', operator: 'equals', values: ['x'] }],
          },
        }),
        ['body/query/filters/0/member'],
      ],
      [above(100, { condition: { type: 'changeBy', percent: 10 } }), ['body/query/timeDimension']],
      [above(100, { condition: { type: 'above' } }), ['body/condition/threshold']],
      [
        above(100, {
          query: {
            measure: 'metrics.total',
            timeDimension: { dimension: 'metrics.region', granularity: 'day' },
          },
        }),
        ['body/query/timeDimension/dimension'],
      ],
      [
        above(100, { securityContext: 'recipient', recipients: [{ email: 'nobody@example.com' }] }),
        ['body/recipients/0/email'],
      ],
      [above(100, { recipients: [{ userId: 999999 }] }), ['body/recipients/0/userId']],
      [above(100, { recipients: [{ email: 'not an address' }] }), ['body/recipients/0/email']],
      [above(100, { recipients: [{}] }), ['body/recipients/0']],
      [above(100, { timezone: 'Mars/Olympus', minute: 75 }), ['body/minute', 'body/timezone']],
      [above(100, { condition: { type: 'sideways', threshold: 1 } }), ['body/condition/type']],
      [above(100, { recipients: [] }), ['body/recipients']],
    ];
    for (const [body, fields] of cases) {
      const res = await api.call('POST', '', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const named = (res.body.errors as { field: string }[]).map((e) => e.field);
      for (const field of fields) expect(named, JSON.stringify(res.body)).toContain(field);
    }
    expect((await api.ok('GET', '?first=1000')).items.length).toBe(before);
    // Unknown alerts and other deployments' alerts are 404.
    const alert = await api.create(above(1));
    expect((await api.call('GET', '/999999')).status).toBe(404);
    const elsewhere = alertsApi(server, server.demoDeploymentId);
    expect((await elsewhere.call('POST', `/${alert.id}/check`)).status).toBe(404);
    const bad = await api.call('PUT', `/${alert.id}`, { condition: { type: 'below' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain('body/condition/threshold');
    expect((await api.ok('GET', `/${alert.id}`)).condition).toEqual({ type: 'above', threshold: 1 });
  });

  it('updates, and a change of what is watched starts the crossing afresh', async () => {
    metrics.write(rows(100, 100));
    const alert = await api.create(above(150));
    expect((await api.check(alert.id)).results[0]).toMatchObject({ value: 200, fired: true });
    const updated = await api.ok('PUT', `/${alert.id}`, {
      condition: { type: 'above', threshold: 180 },
      name: 'Higher',
    });
    expect(updated).toMatchObject({
      name: 'Higher',
      condition: { type: 'above', threshold: 180 },
      scheduleType: 'HOURLY',
    });
    expect((await api.check(alert.id)).results[0]).toMatchObject({ value: 200, fired: true });
    const renamed = await api.ok('PUT', `/${alert.id}`, { name: 'Renamed' });
    expect(renamed.name).toBe('Renamed');
    expect((await api.check(alert.id)).results[0]).toMatchObject({ value: 200, fired: false });
    const gone = await api.call('DELETE', `/${alert.id}`);
    expect(gone.status).toBe(204);
    expect((await api.call('GET', `/${alert.id}/checks`)).status).toBe(404);
  });

  it('two replicas checking at once send one mail', async () => {
    // The second replica's own data directory holds a copy of the DuckDB file, whose view reads
    // the same CSV: both replicas see the same rows (DuckDB lets one process open a file once).
    const otherDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-alerts-replica-'));
    mkdirSync(path.join(otherDir, 'warehouses'));
    copyFileSync(
      path.join(server.config.dataDir, 'warehouses/metrics.duckdb'),
      path.join(otherDir, 'warehouses/metrics.duckdb'),
    );
    const replica = await startReplica(server, { config: { dataDir: otherDir } });
    try {
      metrics.write(rows(20, 30));
      const alert = await api.create(above(100, { recipients: [{ email: 'race@example.com' }] }));
      // An earlier check found the condition false: the state row exists, and the race is on it.
      expect((await api.check(alert.id)).results[0]).toMatchObject({ value: 50, conditionMet: false });
      metrics.write(rows(100, 100));
      const url = `/api/v1/deployments/${metrics.deploymentId}/alerts/${alert.id}/check`;
      const all = await Promise.all(
        [server.app, replica.app, server.app, replica.app].map((app) =>
          app.inject({ method: 'POST', url, headers: bearer(server.adminKey) }),
        ),
      );
      expect(all.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
      const results = all.map((r) => r.json().results[0]);
      expect(results.map((r) => r.value)).toEqual([200, 200, 200, 200]);
      expect(results.filter((r) => r.fired)).toHaveLength(1);

      // Crossing back, then two schedulers on one due fire time with the condition holding again:
      // one check, one more mail. (Earlier tests' alerts are due then too: only this one is read.)
      metrics.write(rows(10, 10));
      expect((await api.check(alert.id)).results[0]).toMatchObject({ conditionMet: false });
      metrics.write(rows(300, 0));
      const at = new Date(alert.nextCheckAt);
      await Promise.all([server.services.alertChecker.tick(at), replica.services.alertChecker.tick(at)]);
      const log = (await api.checks(alert.id)).items;
      expect(log.filter((c: { trigger: string }) => c.trigger === 'schedule')).toEqual([
        expect.objectContaining({ fireTime: at.toISOString(), state: 'done' }),
      ]);
      expect(log[0].results[0]).toMatchObject({ value: 300, fired: true, delivery: 'sent' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(mailbox.envelopes.slice(sent).filter((e) => e.includes('race@example.com'))).toHaveLength(2);
    } finally {
      await replica.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
