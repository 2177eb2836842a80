import { randomUUID } from 'node:crypto';
import {
  getMeta,
  inferColumnType,
  type Model,
  planSqlQueryAsync,
  type SecurityContext,
  SqlApiError,
  sqlApiValue,
  UserError,
} from '@tessera/semantic';
import type { Driver } from '../../../datasources/driver.ts';
import { serviceMetaResult, sqlApiToolResult } from './tool-results.ts';
import type { Brain, BrainEvent, ChatTools, ServiceSqlApiInput } from './types.ts';

/** Every SQL-API query the tools ran, for assertions. */
export interface ToolLog {
  sql: string[];
}

/**
 * The two chat tools over the real semantic layer and a real engine, for tests: `serviceMeta`
 * is `getMeta` of the compiled model, `serviceSqlApi` plans the SQL with the semantic package's
 * SQL-API translator (as `/v1/cubesql` does) and runs it on the driver.
 */
export function semanticTools(
  model: Model,
  driver: Driver,
  securityContext: SecurityContext = {},
): ChatTools & { log: ToolLog } {
  const log: ToolLog = { sql: [] };
  return {
    log,
    async serviceMeta(input) {
      return serviceMetaResult(getMeta(model, securityContext), input.searchQuery);
    },
    async serviceSqlApi(input: ServiceSqlApiInput, signal) {
      log.sql.push(input.sqlQuery);
      let plan: Awaited<ReturnType<typeof planSqlQueryAsync>>;
      try {
        plan = await planSqlQueryAsync(model, input.sqlQuery, { dialect: driver.dialect, securityContext });
      } catch (error) {
        if (error instanceof UserError || error instanceof SqlApiError)
          return { ...input, error: error.message };
        throw error;
      }
      let rows: Record<string, unknown>[];
      try {
        rows = await driver.query(plan.sql, plan.params, { signal });
      } catch (error) {
        if (signal.aborted) throw error;
        return { ...input, error: `Query failed: ${String((error as Error).message).split('\n')[0]}` };
      }
      const schema = plan.columns.map((c) => ({
        name: c.name,
        column_type: c.columnType ?? inferColumnType(rows.map((r) => r[c.alias])),
      }));
      const data = rows.map((r) =>
        plan.columns.map((c, i) => sqlApiValue(r[c.alias], schema[i].column_type)),
      );
      return sqlApiToolResult(input, { schema, rows: data }, randomUUID());
    },
  };
}

/** The clock of the built-in brain's tests: relative dates ("last quarter") resolve against it. */
export const TEST_NOW = new Date('2025-06-15T12:00:00Z');

export interface Asked {
  answer: string;
  events: BrainEvent[];
  /** `serviceSqlApi` inputs, parsed, in call order. */
  queries: { sqlQuery: string; vegaSpec?: string }[];
}

/** Runs one turn to its end (test support for the brains). */
export async function ask(
  brain: Brain,
  tools: ChatTools,
  question: string,
  signal?: AbortSignal,
): Promise<Asked> {
  const events: BrainEvent[] = [];
  for await (const e of brain.run({
    messages: [{ role: 'user', content: question }],
    tools,
    now: TEST_NOW,
    signal,
  }))
    events.push(e);
  const last = events.at(-1);
  const answer =
    last?.type === 'final' ? last.content : last?.type === 'error' ? `ERROR: ${last.message}` : '';
  const queries = events.flatMap((e) =>
    e.type === 'tool_call' && e.name === 'serviceSqlApi' ? [JSON.parse(e.input)] : [],
  );
  return { answer, events, queries };
}

/** Every number written in a text ("1,234.5", "-3", "0.4981"). */
export function numbersIn(text: string): number[] {
  return [...text.matchAll(/-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?/g)].map((m) =>
    Number(m[0].replaceAll(',', '')),
  );
}

/**
 * Whether the text states `expected` as the brain rounds: two decimals, four below one. A figure
 * is found only when it is the correct rounding of the expected value.
 */
export function states(text: string, expected: number): boolean {
  const tolerance = (Math.abs(expected) >= 1 ? 0.005 : 0.00005) * 1.0001;
  return numbersIn(text).some((n) => Math.abs(n - expected) <= tolerance);
}
