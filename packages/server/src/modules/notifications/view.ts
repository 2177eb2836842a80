import cronstrue from 'cronstrue';
import type { NotificationRow } from '../../db/schema.ts';

/**
 * Spec 2.5 `humanReadableSchedule`: the cron expression in words (cronstrue), as schedule.ts
 * described it when the schedule was built. A stored expression always parsed then; should a
 * later cronstrue refuse it, the expression itself is the description rather than a 500.
 */
export function humanReadable(row: Pick<NotificationRow, 'cron_expression'>): string {
  try {
    return cronstrue.toString(row.cron_expression, { throwExceptionOnParseError: true });
  } catch {
    return row.cron_expression;
  }
}
