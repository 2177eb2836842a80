import { describe, expect, it } from 'vitest';
import { buildSchedule, type ScheduleInput } from './schedule.ts';

function ok(input: ScheduleInput) {
  const result = buildSchedule(input);
  if (!result.ok) throw new Error(`expected a schedule, got ${JSON.stringify(result.errors)}`);
  return result.schedule;
}
function problems(input: ScheduleInput) {
  const result = buildSchedule(input);
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result.schedule)}`);
  return result.errors;
}

describe('notification schedules: scheduleType and time fields to cron (spec 4.5 "Create notification", 8)', () => {
  it.each([
    [{ scheduleType: 'HOURLY', minute: 15 }, '15 * * * *', 'At 15 minutes past the hour'],
    [{ scheduleType: 'DAILY', minute: 30, hour: 9 }, '30 9 * * *', 'At 09:30 AM'],
    [
      { scheduleType: 'WEEKLY', minute: 0, hour: 17, dayOfWeek: 5 },
      '0 17 * * 5',
      'At 05:00 PM, only on Friday',
    ],
    [
      { scheduleType: 'MONTHLY', minute: 45, hour: 6, dayOfMonth: 15 },
      '45 6 15 * *',
      'At 06:45 AM, on day 15 of the month',
    ],
    [
      { scheduleType: 'CUSTOM', customCron: '  0   8  *  * 1-5 ' },
      '0 8 * * 1-5',
      'At 08:00 AM, Monday through Friday',
    ],
  ])('%j becomes %s', (input, cron, text) => {
    const schedule = ok(input);
    expect(schedule.cronExpression).toBe(cron);
    expect(schedule.humanReadableSchedule).toBe(text);
  });

  it("fills left-out time fields with cron's nickname defaults: minute 0, hour 0, Sunday, the 1st", () => {
    expect(ok({ scheduleType: 'HOURLY' }).cronExpression).toBe('0 * * * *');
    expect(ok({ scheduleType: 'DAILY', minute: null }).cronExpression).toBe('0 0 * * *');
    expect(ok({ scheduleType: 'WEEKLY', hour: 8 }).cronExpression).toBe('0 8 * * 0');
    expect(ok({ scheduleType: 'MONTHLY', hour: 8 }).cronExpression).toBe('0 8 1 * *');
  });

  it('ignores the fields a type does not read, and customCron for the preset types', () => {
    const schedule = ok({
      scheduleType: 'HOURLY',
      minute: 5,
      hour: 9,
      dayOfWeek: 3,
      customCron: '1 2 3 4 5',
    });
    expect(schedule.cronExpression).toBe('5 * * * *');
    expect(ok({ scheduleType: 'CUSTOM', customCron: '0 6 * * *', hour: 9 }).cronExpression).toBe('0 6 * * *');
  });

  it('defaults the time zone to UTC and keeps a named IANA zone', () => {
    expect(ok({ scheduleType: 'DAILY' }).timezone).toBe('UTC');
    expect(ok({ scheduleType: 'DAILY', timezone: null }).timezone).toBe('UTC');
    expect(ok({ scheduleType: 'DAILY', timezone: 'America/New_York' }).timezone).toBe('America/New_York');
  });
});

describe('notification schedules: bad input names each field', () => {
  it.each([
    ['minute', { minute: 60 }, 'must be an integer from 0 to 59'],
    ['minute', { minute: -1 }, 'must be an integer from 0 to 59'],
    ['minute', { minute: 1.5 }, 'must be an integer from 0 to 59'],
    ['hour', { hour: 24 }, 'must be an integer from 0 to 23'],
    ['dayOfWeek', { dayOfWeek: 7 }, 'must be an integer from 0 to 6'],
    ['dayOfMonth', { dayOfMonth: 0 }, 'must be an integer from 1 to 31'],
    ['dayOfMonth', { dayOfMonth: 32 }, 'must be an integer from 1 to 31'],
  ])('refuses %s out of range (%j)', (field, fields, message) => {
    expect(problems({ scheduleType: 'DAILY', ...fields })).toEqual([{ field: `body/${field}`, message }]);
  });

  it('refuses an unknown scheduleType', () => {
    expect(problems({ scheduleType: 'YEARLY' })).toEqual([
      { field: 'body/scheduleType', message: 'must be one of HOURLY, DAILY, WEEKLY, MONTHLY, CUSTOM' },
    ]);
  });

  it.each([
    'Mars/Olympus',
    '+01:00',
    'GMT+1 ',
    '',
  ])('refuses the time zone %j, naming timezone', (timezone) => {
    expect(problems({ scheduleType: 'DAILY', timezone })).toEqual([
      { field: 'body/timezone', message: 'must be an IANA time zone name such as UTC or Europe/Berlin' },
    ]);
  });

  it('reports every bad field of one request together', () => {
    const found = problems({
      scheduleType: 'CUSTOM',
      customCron: '* * * *',
      minute: 99,
      timezone: 'Nowhere/Land',
    });
    expect(found.map((p) => p.field).sort()).toEqual(['body/customCron', 'body/minute', 'body/timezone']);
  });

  it.each([
    [undefined, 'is required when scheduleType is CUSTOM'],
    ['   ', 'is required when scheduleType is CUSTOM'],
    // cron-parser would take this 4-field expression silently (DESIGN.md "Chosen libraries").
    ['0 9 * *', 'must have 5 fields (minute hour day-of-month month day-of-week), not 4'],
    ['0 0 9 * * *', 'must have 5 fields (minute hour day-of-month month day-of-week), not 6'],
    ['@daily', 'must have 5 fields (minute hour day-of-month month day-of-week), not 1'],
    ['61 * * * *', 'is not a valid cron expression: Invalid value for minute: 61'],
    ['0 25 * * *', 'is not a valid cron expression: Invalid value for hour: 25'],
    ['a b c d e', 'is not a valid cron expression: configuration entry 1 (a) contains illegal characters.'],
    ['0 0 31 2 *', 'never fires: no date matches it'],
  ])('refuses the custom cron %j, naming customCron', (customCron, message) => {
    expect(problems({ scheduleType: 'CUSTOM', customCron })).toEqual([{ field: 'body/customCron', message }]);
  });

  it('takes a field prefix for callers that name fields differently', () => {
    expect(buildSchedule({ scheduleType: 'DAILY', hour: 30 }, '')).toEqual({
      ok: false,
      errors: [{ field: 'hour', message: 'must be an integer from 0 to 23' }],
    });
  });
});
