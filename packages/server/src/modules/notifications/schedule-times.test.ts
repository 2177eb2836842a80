import { describe, expect, it } from 'vitest';
import { buildSchedule, type ScheduleInput } from './schedule.ts';
import { catchUpFireTime, nextFireTimes } from './schedule-times.ts';

function schedule(input: ScheduleInput) {
  const result = buildSchedule(input);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.schedule;
}
const iso = (dates: Date[]) => dates.map((d) => d.toISOString());
const at = (text: string) => new Date(text);

// 2025 transitions. Europe/Berlin: 30 March 02:00 CET -> 03:00 CEST (01:00Z), 26 October
// 03:00 CEST -> 02:00 CET (01:00Z). America/New_York: 9 March 02:00 EST -> 03:00 EDT (07:00Z),
// 2 November 02:00 EDT -> 01:00 EST (06:00Z).
describe('fire times in the schedule time zone, across DST (DESIGN.md "Notifications and rendering")', () => {
  it('fires a daily 09:00 at 09:00 local time, whatever the UTC offset of the day', () => {
    const daily = schedule({ scheduleType: 'DAILY', hour: 9, timezone: 'Europe/Berlin' });
    expect(iso(nextFireTimes(daily, at('2025-03-29T12:00:00Z'), 2))).toEqual([
      '2025-03-30T07:00:00.000Z', // CEST, UTC+2
      '2025-03-31T07:00:00.000Z',
    ]);
    expect(iso(nextFireTimes(daily, at('2025-03-28T12:00:00Z'), 1))).toEqual(['2025-03-29T08:00:00.000Z']); // CET
  });

  // 02:30 does not exist on the spring-forward day: the daily report still goes out that day, at
  // the first valid local time after the gap (03:00), rather than being skipped.
  it.each([
    [
      'Europe/Berlin',
      '2025-03-29T00:00:00Z',
      ['2025-03-29T01:30:00.000Z', '2025-03-30T01:00:00.000Z', '2025-03-31T00:30:00.000Z'],
    ],
    [
      'America/New_York',
      '2025-03-08T00:00:00Z',
      ['2025-03-08T07:30:00.000Z', '2025-03-09T07:00:00.000Z', '2025-03-10T06:30:00.000Z'],
    ],
  ])('daily 02:30 in %s on the spring-forward day fires once, at 03:00 local', (timezone, from, expected) => {
    const daily = schedule({ scheduleType: 'DAILY', hour: 2, minute: 30, timezone });
    expect(iso(nextFireTimes(daily, at(from), 3))).toEqual(expected);
  });

  // The repeated local time on the fall-back day fires once, at its first (summer-time)
  // occurrence: the report is not sent twice. New York repeats 01:00-02:00, Berlin 02:00-03:00.
  it.each([
    [
      'America/New_York',
      1,
      '2025-11-01T00:00:00Z',
      // 2 November 01:30 EDT is 05:30Z; the second 01:30 (EST, 06:30Z) does not fire.
      ['2025-11-01T05:30:00.000Z', '2025-11-02T05:30:00.000Z', '2025-11-03T06:30:00.000Z'],
    ],
    [
      'Europe/Berlin',
      2,
      '2025-10-25T00:00:00Z',
      // 26 October 02:30 CEST is 00:30Z; the second 02:30 (CET, 01:30Z) does not fire.
      ['2025-10-25T00:30:00.000Z', '2025-10-26T00:30:00.000Z', '2025-10-27T01:30:00.000Z'],
    ],
  ])('daily %s at %i:30 on the fall-back day fires once, not twice', (timezone, hour, from, expected) => {
    const daily = schedule({ scheduleType: 'DAILY', hour, minute: 30, timezone });
    expect(iso(nextFireTimes(daily, at(from), 3))).toEqual(expected);
  });

  // An hourly notification follows real elapsed time: the hour that does not exist is skipped and
  // the repeated hour fires on both passes, so it keeps coming every sixty minutes.
  it.each([
    [
      'Europe/Berlin spring forward',
      'Europe/Berlin',
      '2025-03-29T23:30:00Z',
      // 01:00 CET, 03:00 CEST (02:00 does not exist), 04:00 CEST
      ['2025-03-30T00:00:00.000Z', '2025-03-30T01:00:00.000Z', '2025-03-30T02:00:00.000Z'],
    ],
    [
      'Europe/Berlin fall back',
      'Europe/Berlin',
      '2025-10-25T23:30:00Z',
      // 02:00 CEST, 02:00 CET (again), 03:00 CET
      ['2025-10-26T00:00:00.000Z', '2025-10-26T01:00:00.000Z', '2025-10-26T02:00:00.000Z'],
    ],
    [
      'New York spring forward',
      'America/New_York',
      '2025-03-09T05:30:00Z',
      // 01:00 EST, 03:00 EDT (02:00 does not exist), 04:00 EDT
      ['2025-03-09T06:00:00.000Z', '2025-03-09T07:00:00.000Z', '2025-03-09T08:00:00.000Z'],
    ],
    [
      'New York fall back',
      'America/New_York',
      '2025-11-02T04:30:00Z',
      // 01:00 EDT, 01:00 EST (again), 02:00 EST
      ['2025-11-02T05:00:00.000Z', '2025-11-02T06:00:00.000Z', '2025-11-02T07:00:00.000Z'],
    ],
  ])('hourly across the %s fires every sixty minutes', (_name, timezone, from, expected) => {
    const hourly = schedule({ scheduleType: 'HOURLY', minute: 0, timezone });
    expect(iso(nextFireTimes(hourly, at(from), 3))).toEqual(expected);
  });

  it('reads weekly and monthly fields in local time', () => {
    const weekly = schedule({ scheduleType: 'WEEKLY', dayOfWeek: 1, hour: 9, timezone: 'America/New_York' });
    expect(iso(nextFireTimes(weekly, at('2025-03-05T00:00:00Z'), 2))).toEqual([
      '2025-03-10T13:00:00.000Z', // Monday 09:00 EDT
      '2025-03-17T13:00:00.000Z',
    ]);
    const monthly = schedule({
      scheduleType: 'MONTHLY',
      dayOfMonth: 31,
      hour: 23,
      timezone: 'Europe/Berlin',
    });
    // Months without a 31st are skipped; 23:00 on the 31st in Berlin is still the 31st in UTC-2h.
    expect(iso(nextFireTimes(monthly, at('2025-03-01T00:00:00Z'), 3))).toEqual([
      '2025-03-31T21:00:00.000Z',
      '2025-05-31T21:00:00.000Z',
      '2025-07-31T21:00:00.000Z',
    ]);
  });
});

describe('catch-up after downtime: the missed fire times are caught up once', () => {
  const hourly = schedule({ scheduleType: 'HOURLY', minute: 0 });

  it('returns only the latest fire time missed during a day of downtime', () => {
    expect(catchUpFireTime(hourly, at('2025-01-01T10:00:00Z'), at('2025-01-02T09:15:00Z'))).toEqual(
      at('2025-01-02T09:00:00Z'),
    );
  });

  it('returns one fire time, the current minute, for a per-minute schedule down for three days', () => {
    const everyMinute = schedule({ scheduleType: 'CUSTOM', customCron: '* * * * *' });
    expect(catchUpFireTime(everyMinute, at('2025-01-01T00:00:00Z'), at('2025-01-04T12:34:56.789Z'))).toEqual(
      at('2025-01-04T12:34:00Z'),
    );
  });

  it('returns nothing when no fire time has passed since the last one handled', () => {
    expect(catchUpFireTime(hourly, at('2025-01-01T10:00:00Z'), at('2025-01-01T10:59:59.999Z'))).toBeNull();
    expect(catchUpFireTime(hourly, at('2025-01-01T10:00:00Z'), at('2025-01-01T10:00:00Z'))).toBeNull();
    // A clock that went backwards is not a reason to send anything.
    expect(catchUpFireTime(hourly, at('2025-01-01T10:00:00Z'), at('2025-01-01T08:00:00Z'))).toBeNull();
  });

  it('counts a fire time equal to now as due', () => {
    expect(catchUpFireTime(hourly, at('2025-01-01T10:00:00Z'), at('2025-01-01T11:00:00Z'))).toEqual(
      at('2025-01-01T11:00:00Z'),
    );
  });

  it('catches up in the schedule time zone, and a repeated local time only once', () => {
    const daily = schedule({ scheduleType: 'DAILY', hour: 1, minute: 30, timezone: 'America/New_York' });
    // Down from before the fall-back day to after its second 01:30: the first 01:30 is due.
    expect(catchUpFireTime(daily, at('2025-11-01T05:30:00Z'), at('2025-11-02T06:45:00Z'))).toEqual(
      at('2025-11-02T05:30:00Z'),
    );
    // Once that is handled, the second 01:30 is not caught up as another fire time.
    expect(catchUpFireTime(daily, at('2025-11-02T05:30:00Z'), at('2025-11-02T06:45:00Z'))).toBeNull();
  });

  it('catches up a monthly notification missed for months with only the latest month', () => {
    const monthly = schedule({ scheduleType: 'MONTHLY', dayOfMonth: 15, hour: 8, timezone: 'Europe/Berlin' });
    expect(catchUpFireTime(monthly, at('2025-01-15T07:00:00Z'), at('2025-04-20T00:00:00Z'))).toEqual(
      at('2025-04-15T06:00:00Z'),
    );
  });
});
