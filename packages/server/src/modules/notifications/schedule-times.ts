import { Cron } from 'croner';
import type { Schedule } from './schedule.ts';

type Timed = Pick<Schedule, 'cronExpression' | 'timezone'>;

/**
 * When a notification fires, as UTC instants, evaluated in its own IANA time zone (DESIGN.md
 * "Notifications and rendering": DST-safe). croner follows Vixie cron across DST changes, and so
 * do we:
 * - a fixed time of day (one minute and one hour, as every DAILY, WEEKLY and MONTHLY schedule has)
 *   fires once per day: when the clock springs forward over it (02:30 in a 02:00-03:00 gap) it
 *   fires at the first valid time after the gap (03:00 local), on the same day, rather than
 *   skipping a daily report; when the clock falls back and repeats it (01:30 twice), it fires only
 *   at the first occurrence, rather than sending the same report twice;
 * - a time with a wildcard, list or step in minutes or hours (every HOURLY schedule) runs on real
 *   elapsed time: the hour that does not exist is skipped, the repeated hour fires on both passes,
 *   so an hourly notification keeps coming every sixty minutes through either change.
 * A CUSTOM list such as `30 1,2 * * *` counts as the second kind, as it does in Vixie cron.
 */
function cronOf(schedule: Timed): Cron {
  // No callback, so croner starts no timer: this object only computes dates.
  return new Cron(schedule.cronExpression, { timezone: schedule.timezone, mode: '5-part' });
}

/** The next `count` fire times strictly after `after`. */
export function nextFireTimes(schedule: Timed, after: Date, count: number): Date[] {
  return cronOf(schedule).nextRuns(count, after);
}

/**
 * The one fire time to catch up after downtime: the latest fire time in (`lastHandled`, `now`], or
 * null when none fell in that window. A server that was down for a day with an hourly notification
 * sends the latest report once, not twenty-four stale copies (nor one per missed minute of a
 * per-minute custom schedule); the earlier missed fire times are simply skipped. `lastHandled` is
 * the fire time the notification last ran for (its creation time before its first run).
 */
export function catchUpFireTime(schedule: Timed, lastHandled: Date, now: Date): Date | null {
  const cron = cronOf(schedule);
  const first = cron.nextRun(lastHandled);
  if (first === null || first.getTime() > now.getTime()) return null;
  // Fire times fall on whole minutes, and previousRuns excludes its reference: asking from the
  // start of the minute after `now` returns the latest fire time at or before `now`.
  const nextMinute = new Date(Math.floor(now.getTime() / 60_000) * 60_000 + 60_000);
  const [latest] = cron.previousRuns(1, nextMinute);
  return latest ?? first;
}
