import type { CubeQuery } from '@tessera/semantic';
import { userError } from './errors.ts';

/** A data-API request as the service reads it, whether it came by GET or by POST. */
export interface DataRequest {
  query: CubeQuery | CubeQuery[];
  /** `multi`: the caller understands `{queryType, results[], pivotQuery}` (Cube's protocol). */
  queryType: string | undefined;
}

/**
 * GET carries `?query=<JSON>&queryType=multi`, POST a JSON body `{query, queryType}` (Cube's
 * REST API; @cubejs-client/core switches to POST for URLs over 2,000 characters).
 */
export function readDataRequest(querystring: Record<string, unknown>, body: unknown): DataRequest {
  const source = body && typeof body === 'object' ? (body as Record<string, unknown>) : querystring;
  let query = source.query;
  if (typeof query === 'string') {
    try {
      query = JSON.parse(query);
    } catch {
      throw userError('Invalid query format: query is not valid JSON');
    }
  }
  if (query === undefined || query === null) throw userError('Query param is required');
  const isQuery = (q: unknown) => typeof q === 'object' && q !== null && !Array.isArray(q);
  if (Array.isArray(query) ? query.length === 0 || !query.every(isQuery) : !isQuery(query))
    throw userError('Invalid query format: query must be an object or a non-empty array of objects');
  const queryType = source.queryType;
  return {
    query: query as DataRequest['query'],
    queryType: typeof queryType === 'string' ? queryType : undefined,
  };
}

/** Body `{query, timezone}` (POST) or `?query=` (GET), as Cube's `/v1/cubesql`. */
export function readSqlRequest(
  querystring: Record<string, unknown>,
  body: unknown,
): { sql: string; timezone?: string } {
  const source = body && typeof body === 'object' ? (body as Record<string, unknown>) : querystring;
  if (typeof source.query !== 'string' || source.query.trim() === '')
    throw userError('query must be a SQL string');
  if (source.timezone !== undefined && typeof source.timezone !== 'string')
    throw userError('timezone must be a string');
  return { sql: source.query, timezone: source.timezone as string | undefined };
}
