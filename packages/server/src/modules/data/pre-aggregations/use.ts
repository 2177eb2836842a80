import type { PreAggregation } from '@tessera/semantic';
import type { Driver } from '../../../datasources/driver.ts';

/** One entry of Cube's `usedPreAggregations`, keyed by the table name. */
export interface UsedPreAggregation {
  targetTableName: string;
  refreshKeyValues: unknown[];
  lastUpdatedAt: number;
}

/** What a part reads when a rollup answers it: the engine holding the rollup, and which tables. */
export interface RollupUse {
  preAggregation: PreAggregation;
  driver: Driver;
  external: boolean;
  used: Record<string, UsedPreAggregation>;
}
