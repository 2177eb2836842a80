import { Cron } from 'croner';
import cronstrue from 'cronstrue';
import type { FieldProblem } from '../../errors/domain-errors.ts';

/**
 * The cadence of a scheduled notification (spec 2.5; "Create notification" in spec 4.5; limits in
 * spec 8): `scheduleType` plus time fields, or a raw `customCron`, become one 5-field cron
 * expression, its human-readable text (cronstrue) and the IANA time zone it is evaluated in.
 *
 * Which fields each type reads (the others are ignored, but a supplied value is still range-checked,
 * because an out-of-range number is bad input whatever the type):
 *
 * | scheduleType | reads                          | cron                     |
 * |--------------|--------------------------------|--------------------------|
 * | HOURLY       | minute                         | `m * * * *`              |
 * | DAILY        | minute, hour                   | `m h * * *`              |
 * | WEEKLY       | minute, hour, dayOfWeek        | `m h * * dow`            |
 * | MONTHLY      | minute, hour, dayOfMonth       | `m h dom * *`            |
 * | CUSTOM       | customCron (required)          | customCron, normalised   |
 *
 * A time field left out (or null) takes the value cron's own nicknames use (@hourly, @daily,
 * @weekly, @monthly): minute 0, hour 0, dayOfWeek 0 (Sunday), dayOfMonth 1. A MONTHLY schedule on
 * day 29-31 skips the months that lack that day, as cron does. `customCron` is ignored for the
 * other types. `timezone` defaults to UTC.
 */
export const scheduleTypes = ['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'CUSTOM'] as const;
export type ScheduleType = (typeof scheduleTypes)[number];

export interface ScheduleInput {
  scheduleType: string;
  minute?: number | null;
  hour?: number | null;
  dayOfWeek?: number | null;
  dayOfMonth?: number | null;
  customCron?: string | null;
  timezone?: string | null;
}

/** What a notification stores and returns (spec 2.5 `cronExpression`, `humanReadableSchedule`, `timezone`). */
export interface Schedule {
  cronExpression: string;
  humanReadableSchedule: string;
  timezone: string;
}

export type ScheduleResult = { ok: true; schedule: Schedule } | { ok: false; errors: FieldProblem[] };

export const defaultTimezone = 'UTC';

/** Spec 8 "Notification time fields", and the nickname defaults described above. */
const timeFields = {
  minute: { min: 0, max: 59, fallback: 0 },
  hour: { min: 0, max: 23, fallback: 0 },
  dayOfWeek: { min: 0, max: 6, fallback: 0 },
  dayOfMonth: { min: 1, max: 31, fallback: 1 },
} as const;
type TimeField = keyof typeof timeFields;

/**
 * Checks every field at once, so that a route can answer one 400 naming each bad field; field names
 * are prefixed with `fieldPrefix` (`body/minute`), as other services name request fields.
 */
export function buildSchedule(input: ScheduleInput, fieldPrefix = 'body/'): ScheduleResult {
  const errors: FieldProblem[] = [];
  const problem = (field: string, message: string) => errors.push({ field: fieldPrefix + field, message });

  if (!(scheduleTypes as readonly string[]).includes(input.scheduleType)) {
    problem('scheduleType', `must be one of ${scheduleTypes.join(', ')}`);
  }
  const time = {} as Record<TimeField, number>;
  for (const [field, range] of Object.entries(timeFields) as [TimeField, (typeof timeFields)[TimeField]][]) {
    const value = input[field];
    if (value === undefined || value === null) {
      time[field] = range.fallback;
    } else if (!Number.isInteger(value) || value < range.min || value > range.max) {
      problem(field, `must be an integer from ${range.min} to ${range.max}`);
    } else {
      time[field] = value;
    }
  }
  const timezone = input.timezone ?? defaultTimezone;
  if (!isTimeZone(timezone)) {
    problem('timezone', 'must be an IANA time zone name such as UTC or Europe/Berlin');
  }

  let cronExpression: string | null = null;
  if (input.scheduleType === 'CUSTOM') {
    const checked = checkCustomCron(input.customCron);
    if ('message' in checked) problem('customCron', checked.message);
    else cronExpression = checked.expression;
  } else {
    cronExpression = presetCron(input.scheduleType, time);
  }
  if (errors.length > 0 || cronExpression === null) return { ok: false, errors };
  return {
    ok: true,
    schedule: { cronExpression, humanReadableSchedule: describe(cronExpression), timezone },
  };
}

function presetCron(type: string, t: Record<TimeField, number>): string | null {
  switch (type) {
    case 'HOURLY':
      return `${t.minute} * * * *`;
    case 'DAILY':
      return `${t.minute} ${t.hour} * * *`;
    case 'WEEKLY':
      return `${t.minute} ${t.hour} * * ${t.dayOfWeek}`;
    case 'MONTHLY':
      return `${t.minute} ${t.hour} ${t.dayOfMonth} * *`;
    default:
      return null;
  }
}

/**
 * A custom expression must be standard 5-field cron (minute precision; no seconds or years, no
 * `@daily` nicknames), parse in croner and in cronstrue (so that it can be described), and fire at
 * least once: `0 0 31 2 *` parses but never fires, which would be a notification that silently
 * never sends.
 */
function checkCustomCron(raw: string | null | undefined): { expression: string } | { message: string } {
  if (raw === undefined || raw === null || raw.trim() === '') {
    return { message: 'is required when scheduleType is CUSTOM' };
  }
  const fields = raw.trim().split(/\s+/);
  if (fields.length !== 5) {
    return {
      message: `must have 5 fields (minute hour day-of-month month day-of-week), not ${fields.length}`,
    };
  }
  const expression = fields.join(' ');
  let cron: Cron;
  try {
    cron = new Cron(expression, { mode: '5-part' });
  } catch (error) {
    return { message: `is not a valid cron expression: ${cronerReason(error)}` };
  }
  try {
    describe(expression);
  } catch (error) {
    return { message: `is not a valid cron expression: ${String(error).replace(/^Error: /, '')}` };
  }
  if (cron.nextRun(new Date('2000-01-01T00:00:00Z')) === null) {
    return { message: 'never fires: no date matches it' };
  }
  return { expression };
}

/** croner prefixes its messages with the class that threw them, which means nothing to a caller. */
function cronerReason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/^CronPattern: /, '');
}

function describe(expression: string): string {
  return cronstrue.toString(expression, { throwExceptionOnParseError: true });
}

/**
 * An IANA name that this runtime's time-zone database knows (Intl, which croner also uses).
 * UTC offsets such as `+01:00` are refused: an offset has no DST rules, which is the point of
 * naming a zone.
 */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
