import {
  useDeleteNotification,
  useGetNotificationRuns,
  type useGetNotifications,
  useRunNotificationNow,
} from '@tessera/client/react';
import { useState } from 'react';
import { describeError } from '../api/errors.ts';

type Schedules = ReturnType<typeof useGetNotifications>;
type Schedule = NonNullable<Schedules['data']>['items'][number];

/** Dates in the run log as a person reads them, in their own zone. */
const when = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/** The dashboard's schedules, each with "Send now", its run log and delete. */
export function ScheduleList({ deploymentId, schedules }: { deploymentId: number; schedules: Schedules }) {
  const items = schedules.data?.items ?? [];
  if (schedules.isPending) return <p className="muted">Loading the schedules…</p>;
  return (
    <section className="sch-list" aria-label="Schedules of this dashboard">
      {items.length === 0 ? (
        <p className="muted">This dashboard has no schedule yet.</p>
      ) : (
        <ul>
          {items.map((s) => (
            <ScheduleItem key={s.id} deploymentId={deploymentId} schedule={s} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ScheduleItem({ deploymentId, schedule }: { deploymentId: number; schedule: Schedule }) {
  const [showRuns, setShowRuns] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const path = { deploymentId, id: schedule.id };
  const sendNow = useRunNotificationNow({
    onSuccess: () => setShowRuns(true),
    onError: (e) => setProblem(describeError(e)),
  });
  const remove = useDeleteNotification({ onError: (e) => setProblem(describeError(e)) });
  const label = `${schedule.humanReadableSchedule} (${schedule.timezone}), ${schedule.notificationFormat.toUpperCase()}`;
  return (
    <li className="sch-item">
      <div className="sch-item-head">
        <span className="sch-what">
          {label}
          {!schedule.isEnabled && <span className="muted"> · paused</span>}
        </span>
        <span className="sch-actions">
          <button
            type="button"
            className="button button-secondary"
            disabled={sendNow.isPending}
            aria-label={`Send now: ${label}`}
            onClick={() => {
              setProblem(null);
              sendNow.mutate({ params: { path } });
            }}
          >
            {sendNow.isPending ? 'Sending…' : 'Send now'}
          </button>
          <button
            type="button"
            className="button button-ghost"
            aria-expanded={showRuns}
            aria-label={`Run log: ${label}`}
            onClick={() => setShowRuns((v) => !v)}
          >
            Run log
          </button>
          {confirming ? (
            <button
              type="button"
              className="button button-danger"
              disabled={remove.isPending}
              aria-label={`Confirm deleting: ${label}`}
              onClick={() => remove.mutate({ params: { path } })}
            >
              {remove.isPending ? 'Deleting…' : 'Delete for good'}
            </button>
          ) : (
            <button
              type="button"
              className="button button-ghost"
              aria-label={`Delete: ${label}`}
              onClick={() => setConfirming(true)}
            >
              Delete
            </button>
          )}
        </span>
      </div>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      {showRuns && <RunLog deploymentId={deploymentId} id={schedule.id} />}
    </li>
  );
}

const unfinished = new Set(['pending', 'running']);

/** The run log (newest first), polled while a run is still under way. */
function RunLog({ deploymentId, id }: { deploymentId: number; id: number }) {
  const runs = useGetNotificationRuns(
    { params: { path: { deploymentId, id }, query: { first: 10 } } },
    {
      refetchInterval: (query) =>
        (query.state.data?.items ?? []).some((r) => unfinished.has(r.state)) ? 1_000 : false,
    },
  );
  const items = runs.data?.items ?? [];
  if (runs.isPending) return <p className="muted">Loading the run log…</p>;
  if (runs.isError)
    return <p className="form-error">The run log could not be read: {describeError(runs.error)}</p>;
  if (items.length === 0) return <p className="muted sch-runs">No run yet.</p>;
  return (
    <ol className="sch-runs" aria-label="Run log">
      {items.map((run) => (
        <li key={run.id} data-state={run.state}>
          <span className="sch-run-when">{when.format(new Date(run.fireTime))}</span>{' '}
          <span className={`sch-state sch-state-${run.state}`}>{run.state.replace('_', ' ')}</span>
          {run.error && <span className="sch-run-error"> · {run.error}</span>}
          {run.deliveries.length > 0 && (
            <ul className="sch-deliveries">
              {run.deliveries.map((d) => (
                <li key={`${d.type}:${d.address}`}>
                  {d.address}: {d.state}
                  {d.error ? ` (${d.error})` : ''}
                </li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ol>
  );
}
