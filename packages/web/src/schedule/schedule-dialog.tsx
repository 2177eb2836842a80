import { useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@tessera/client';
import { useClient, useGetNotifications } from '@tessera/client/react';
import { type FormEvent, useMemo, useState } from 'react';
import { describeError } from '../api/errors.ts';
import type { DashboardFilter, TimeGrain } from '../dashboard/types.ts';
import { useSignedInUser } from '../session/session.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Field, SelectField } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';
import {
  type Frequency,
  formFieldOf,
  frequencies,
  frequencyLabels,
  initialForm,
  notificationBody,
  recipientList,
  type ScheduleForm,
  weekdays,
} from './schedule-form.ts';
import { ScheduleList } from './schedule-list.tsx';
import './schedule.css';

export interface DashboardViewChoice {
  filters: DashboardFilter[];
  timeGrains: TimeGrain[];
}

const notificationsPath = '/api/v1/deployments/{deploymentId}/notifications' as const;

/**
 * Schedule a dashboard by email (spec 2.5, 4.5; issue 23 item 5): the dashboard's schedules with
 * "Send now", their run log and delete, and a form for a new one (every `scheduleType`, its time
 * fields, an IANA zone, PNG or PDF, recipients, the view's filters and time grains). The new
 * schedule and its recipients are two calls: when the recipients are refused, the schedule just
 * made is deleted again, so a refused form leaves nothing behind.
 */
export function ScheduleDialog({
  deploymentId,
  publicId,
  title,
  view,
  onClose,
}: {
  deploymentId: number;
  publicId: string;
  title: string;
  view: DashboardViewChoice;
  onClose: () => void;
}) {
  const client = useClient();
  const queryClient = useQueryClient();
  const user = useSignedInUser();
  const [form, setForm] = useState<ScheduleForm>(() => initialForm(user.email ?? null));
  const [problems, setProblems] = useState<Problems>(noProblems);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const schedules = useGetNotifications({
    params: { path: { deploymentId }, query: { dashboardPublicId: publicId, first: 50 } },
  });
  const zones = useMemo(timeZones, []);
  const set = (patch: Partial<ScheduleForm>) => setForm((f) => ({ ...f, ...patch }));
  const problem = (field: keyof ScheduleForm) => fieldProblems(problems)[field];
  const viewCount = view.filters.length + view.timeGrains.length;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    setSaved(null);
    setSaving(true);
    try {
      const created = unwrap(
        await client.POST(notificationsPath, {
          params: { path: { deploymentId } },
          body: notificationBody(form, publicId, view),
        }),
      );
      const path = { deploymentId, id: created.id };
      try {
        unwrap(
          await client.POST(`${notificationsPath}/{id}/recipients`, {
            params: { path },
            body: {
              recipients: recipientList(form.recipients).map((email) => ({ type: 'EMAIL' as const, email })),
            },
          }),
        );
      } catch (refused) {
        await client.DELETE(`${notificationsPath}/{id}`, { params: { path } });
        throw refused;
      }
      setSaved(`Scheduled: ${created.humanReadableSchedule} (${created.timezone}).`);
      setForm((f) => ({ ...initialForm(user.email ?? null), format: f.format }));
    } catch (error) {
      setProblems(problemsOf(error));
    } finally {
      setSaving(false);
      // Only this dashboard's schedules changed: the page's widgets keep their rows.
      await queryClient.invalidateQueries({ queryKey: [notificationsPath] });
    }
  };

  return (
    <Dialog
      title={`Schedule “${title}”`}
      description="Email this dashboard as an image or a PDF on a schedule, to anyone."
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Close
          </button>
          <button type="submit" className="button button-primary" disabled={saving}>
            {saving ? 'Scheduling…' : 'Add schedule'}
          </button>
        </>
      )}
    >
      <ScheduleList deploymentId={deploymentId} schedules={schedules} />
      <fieldset className="sch-new">
        <legend>New schedule</legend>
        <div className="sch-grid">
          <SelectField<Frequency>
            label="Frequency"
            value={form.frequency}
            options={frequencies.map((f) => ({ value: f, label: frequencyLabels[f] }))}
            onChange={(frequency) => set({ frequency })}
            problem={problem('frequency')}
          />
          {form.frequency === 'CUSTOM' ? (
            <Field
              label="Cron expression"
              value={form.cron}
              onChange={(cron) => set({ cron })}
              hint="Five fields: minute, hour, day of month, month, day of week."
              problem={problem('cron')}
            />
          ) : (
            <Field
              label={form.frequency === 'HOURLY' ? 'Minute past the hour' : 'Time'}
              type="time"
              value={form.time}
              onChange={(time) => set({ time })}
              problem={problem('time')}
            />
          )}
          {form.frequency === 'WEEKLY' && (
            <SelectField
              label="Day of the week"
              value={form.dayOfWeek}
              options={weekdays.map((day, i) => ({ value: String(i), label: day }))}
              onChange={(dayOfWeek) => set({ dayOfWeek })}
              problem={problem('dayOfWeek')}
            />
          )}
          {form.frequency === 'MONTHLY' && (
            <Field
              label="Day of the month"
              type="number"
              value={form.dayOfMonth}
              onChange={(dayOfMonth) => set({ dayOfMonth })}
              hint="Months without that day are skipped."
              problem={problem('dayOfMonth')}
            />
          )}
          <SelectField
            label="Time zone"
            value={form.timezone}
            options={zones.map((z) => ({ value: z, label: z.replaceAll('_', ' ') }))}
            onChange={(timezone) => set({ timezone })}
            problem={problem('timezone')}
          />
          <SelectField<'png' | 'pdf'>
            label="Format"
            value={form.format}
            options={[
              { value: 'png', label: 'Image (PNG)' },
              { value: 'pdf', label: 'PDF' },
            ]}
            onChange={(format) => set({ format })}
            problem={problem('format')}
          />
        </div>
        <Field
          label="Recipients"
          type="email"
          value={form.recipients}
          onChange={(recipients) => set({ recipients })}
          hint="Email addresses, separated by commas."
          problem={problem('recipients')}
        />
        <label className="sch-check">
          <input
            type="checkbox"
            checked={form.keepView}
            disabled={viewCount === 0}
            onChange={(e) => set({ keepView: e.target.checked })}
          />
          {viewCount === 0
            ? 'The dashboard as published (no filters are chosen)'
            : `With the filters and time grains chosen now (${viewCount})`}
        </label>
        {problems.other && (
          <p className="form-error" role="alert">
            It could not be scheduled: {problems.other}
          </p>
        )}
        {saved && (
          <p className="notice" role="status">
            {saved}
          </p>
        )}
      </fieldset>
      {schedules.isError && (
        <p className="form-error" role="alert">
          The schedules could not be listed: {describeError(schedules.error)}
        </p>
      )}
    </Dialog>
  );
}

/** The API's field problems by the form field that shows them. */
function fieldProblems(problems: Problems): Partial<Record<keyof ScheduleForm, string>> {
  const shown: Partial<Record<keyof ScheduleForm, string>> = {};
  for (const [apiField, message] of Object.entries(problems.fields)) {
    const field = formFieldOf(apiField);
    if (field !== 'other') shown[field] ??= message;
  }
  return shown;
}

/** Every IANA zone the browser knows (UTC first), or a short list where it lists none. */
function timeZones(): string[] {
  const supported = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf;
  const zones = supported ? supported('timeZone') : ['Europe/London', 'America/New_York'];
  return ['UTC', ...zones.filter((z) => z !== 'UTC')];
}
