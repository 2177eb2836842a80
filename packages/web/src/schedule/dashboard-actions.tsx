import { type ReactNode, useState } from 'react';
import { parseState, stateFilters } from '../dashboard/view-state.ts';
import { ExportButtons, fileStem } from './export-buttons.tsx';
import { type DashboardViewChoice, ScheduleDialog } from './schedule-dialog.tsx';
import './schedule.css';

/**
 * The filters and time grains chosen on the page now. The dashboard's controls keep them in the
 * address (dashboard/view-state.ts), so the address is read when an action starts.
 */
function currentView(): DashboardViewChoice {
  const state = parseState(window.location.search);
  return {
    filters: stateFilters(state),
    timeGrains: Object.entries(state.grains).map(([member, grain]) => ({ member, grain })),
  };
}

/** Export and Schedule on a signed-in user's dashboard page (issue 23 item 5). */
export function DashboardActions({
  deploymentId,
  publicId,
  title,
  children,
}: {
  deploymentId: number;
  publicId: string;
  title: string;
  /** More actions of the page, in the same bar (the print view's link). */
  children?: ReactNode;
}) {
  const [scheduling, setScheduling] = useState<DashboardViewChoice | null>(null);
  return (
    <div className="sch-actions-bar">
      <button type="button" className="button button-secondary" onClick={() => setScheduling(currentView())}>
        Schedule…
      </button>
      <ExportButtons
        deploymentId={deploymentId}
        publicId={publicId}
        fileName={fileStem(title)}
        view={currentView}
      />
      {children}
      {scheduling && (
        <ScheduleDialog
          deploymentId={deploymentId}
          publicId={publicId}
          title={title}
          view={scheduling}
          onClose={() => setScheduling(null)}
        />
      )}
    </div>
  );
}
