import { randomUUID } from 'node:crypto';
import { DomainError } from '../../errors/domain-errors.ts';
import type { DataCaller } from '../data/caller.ts';
import { settled } from '../data/outcome.ts';
import type { DataService } from '../data/service.ts';
import { type ChatTools, serviceMetaResult, sqlApiToolResult } from './brain/index.ts';

/**
 * The agent's tools over the data service (DESIGN.md "Chat agent"), as the data API's `/v1/meta`
 * and `/v1/cubesql` run them: one caller for the whole run, whose security context decides rows
 * and members and whose branch branch.ts decided. A query the caller may not run, or one that
 * does not plan, is a result with `error` (spec 7 "Chat tool failure"); anything else is thrown
 * and reported by invokeTool as a bare failure, without internals.
 */
export function dataTools(data: DataService, caller: DataCaller): ChatTools {
  return {
    async serviceMeta(input) {
      try {
        return serviceMetaResult(await data.meta(caller, false), input.searchQuery);
      } catch (error) {
        if (error instanceof DomainError && error.status < 500) return { ...input, error: error.message };
        throw error;
      }
    },
    async serviceSqlApi(input, signal) {
      try {
        const compiled = await data.compileSql(caller, input.sqlQuery);
        signal.throwIfAborted();
        const result = await settled(await data.run(caller, compiled));
        return sqlApiToolResult(input, { schema: result.columns, rows: result.rows }, randomUUID());
      } catch (error) {
        if (error instanceof DomainError && error.status < 500) return { ...input, error: error.message };
        throw error;
      }
    },
  };
}
