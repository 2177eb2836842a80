import { UserError } from '../errors.ts';
import type { Dialect } from './dialect.ts';
import { trino } from './trino.ts';

/**
 * Presto (prestodb), which shares Trino's client protocol and, for what the planner prints, its
 * SQL, except time zones: Presto has no `with_timezone`/`at_timezone` pair, and how its TIMESTAMP
 * reads a zone depends on the cluster's `legacy_timestamp` setting, which Tessera cannot see. A
 * query in a zone other than UTC is therefore refused rather than answered in the wrong hours;
 * in UTC the columns' own wall clock is the local time, as on every engine.
 */
export const presto: Dialect = {
  ...trino,
  name: 'presto',
  toLocal: (_expr, _tz, zone) => {
    throw new UserError(
      `Time zones other than UTC (${zone}) are not supported on Presto: it has no with_timezone, and its timestamps read a zone as the cluster's legacy_timestamp setting says; ask in UTC`,
    );
  },
  median: () => {
    throw new UserError(
      'Median measures are not supported on Presto: it has no exact percentile aggregate (approx_percentile is an estimate, not the interpolated median)',
    );
  },
};
