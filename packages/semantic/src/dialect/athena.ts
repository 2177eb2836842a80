import type { Dialect } from './dialect.ts';
import { trinoFamily } from './trino.ts';

/**
 * Amazon Athena engine version 3, whose SQL is Trino's ("Athena engine version 3 functions": its
 * functions are Trino's; its SELECT takes `NULLS FIRST|LAST` and OFFSET before LIMIT as Trino's
 * grammar does). Everything the planner prints was checked against the Athena user guide and is
 * printed as for Trino (test/athena-dialect.test.ts holds them equal):
 * - `with_timezone` and `at_timezone` with a timestamp argument (Athena v3 refuses only a TIME
 *   with a political zone, which the planner never writes);
 * - `date_trunc`, `date_diff('millisecond', ...)`, `approx_distinct`, `LIKE ... ESCAPE '\'`;
 * - `CAST(... AS TIMESTAMP(6))`: Athena's tables hold timestamp(3), which the cast keeps exactly
 *   (its "Timestamp values with precision greater than 3 are rounded" concerns stored data);
 * - rolling windows are joins on time ranges, multi-stage ranks `rank() OVER (...)`: no frames.
 * What differs is the refusals' words, which name Athena (a median, a mixed-unit interval).
 */
export const athena: Dialect = trinoFamily('athena', 'Athena');
