/**
 * The Schedule dialog's form as plain data, and the notification body it becomes (spec 2.5, 4.5:
 * `scheduleType` with its time fields, an IANA zone, the format, the view's filters and grains).
 * Pure, so that the rules (which fields a frequency reads, how recipients are read) are testable
 * without a browser.
 */
import type { DashboardFilter, TimeGrain } from '../dashboard/types.ts';

export const frequencies = ['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'CUSTOM'] as const;
export type Frequency = (typeof frequencies)[number];

export const frequencyLabels: Record<Frequency, string> = {
  HOURLY: 'Every hour',
  DAILY: 'Every day',
  WEEKLY: 'Every week',
  MONTHLY: 'Every month',
  CUSTOM: 'Custom (cron)',
};

export const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export interface ScheduleForm {
  frequency: Frequency;
  /** `HH:MM` (the day's time) for daily, weekly and monthly; only the minutes count for hourly. */
  time: string;
  dayOfWeek: string;
  dayOfMonth: string;
  cron: string;
  timezone: string;
  format: 'png' | 'pdf';
  /** Addresses, separated by commas, spaces or new lines. */
  recipients: string;
  /** Whether the dashboard's current filters and time grains go into the schedule. */
  keepView: boolean;
}

/** The browser's own zone (the schedule's default), or UTC where the browser does not say. */
export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export function initialForm(email: string | null): ScheduleForm {
  return {
    frequency: 'WEEKLY',
    time: '08:00',
    dayOfWeek: '1',
    dayOfMonth: '1',
    cron: '0 8 * * 1-5',
    timezone: browserZone(),
    format: 'png',
    recipients: email ?? '',
    keepView: true,
  };
}

/** The addresses of the recipients field, each once, in the order typed. */
export function recipientList(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).filter((s) => s !== ''))];
}

/** The create body: the frequency's time fields (the API range-checks them and names a bad one). */
export function notificationBody(
  form: ScheduleForm,
  publicId: string,
  view: { filters: DashboardFilter[]; timeGrains: TimeGrain[] },
) {
  const [hour, minute] = form.time.split(':').map((part) => (part === '' ? Number.NaN : Number(part)));
  const number = (value: number) => (Number.isFinite(value) ? value : null);
  const reads = {
    HOURLY: { minute: number(minute) },
    DAILY: { minute: number(minute), hour: number(hour) },
    WEEKLY: { minute: number(minute), hour: number(hour), dayOfWeek: number(Number(form.dayOfWeek)) },
    MONTHLY: { minute: number(minute), hour: number(hour), dayOfMonth: number(Number(form.dayOfMonth)) },
    CUSTOM: { customCron: form.cron.trim() },
  }[form.frequency];
  return {
    scheduleType: form.frequency,
    ...reads,
    timezone: form.timezone,
    dashboardPublicId: publicId,
    notificationFormat: form.format,
    filters: form.keepView ? view.filters : [],
    timeGrains: form.keepView ? view.timeGrains : [],
    isEnabled: true,
  };
}

/** Which form field shows the API's problem with a body field. */
export function formFieldOf(apiField: string): keyof ScheduleForm | 'other' {
  if (apiField === 'minute' || apiField === 'hour') return 'time';
  if (apiField === 'dayOfWeek') return 'dayOfWeek';
  if (apiField === 'dayOfMonth') return 'dayOfMonth';
  if (apiField === 'customCron') return 'cron';
  if (apiField === 'timezone') return 'timezone';
  if (apiField === 'notificationFormat') return 'format';
  if (apiField === 'scheduleType') return 'frequency';
  if (apiField.startsWith('recipients')) return 'recipients';
  return 'other';
}
