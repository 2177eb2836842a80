import { createHash } from 'node:crypto';
import {
  AthenaClient,
  type ColumnInfo,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  type QueryExecution,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import {
  type Driver,
  engineFault,
  QueryCancelledError,
  type QueryOptions,
  statementTag,
  WarehouseUnavailableError,
} from './driver.ts';
import { athenaFault } from './engine-faults.ts';
import { SlotQueue } from './slot-queue.ts';
import { inlineParams } from './trino-literals.ts';
import { integerFromText } from './wire-values.ts';

export interface AthenaSettings {
  region: string;
  workgroup?: string;
  /** `s3://bucket/prefix/` for results; absent: the workgroup's own. */
  outputLocation?: string;
  catalog?: string;
  database: string;
  /** Absent: the SDK's default chain, this server's own identity (kinds/athena.ts `credentials`). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Another endpoint than the region's (a VPC endpoint; the protocol server of the tests). */
  endpoint?: string;
  /** Statements running at once per deployment; more wait for one to finish. */
  max?: number;
  /** How long a connection may take to open, and an answer to come (ms). */
  connectionTimeoutMs?: number;
  deploymentId?: number | null;
  /** First and longest wait between two GetQueryExecution polls (ms). */
  pollMs?: { first: number; max: number };
}

/** A query Athena ended as FAILED: its AthenaError (category, type) and StateChangeReason. */
export class AthenaQueryError extends Error {
  override readonly name = 'AthenaQueryError';
  constructor(
    message: string,
    readonly errorCategory: number | undefined,
    readonly errorType: number | undefined,
  ) {
    super(message);
  }
}

/** Rows per GetQueryResults page: the API's maximum. */
const pageSize = 1000;

/**
 * Amazon Athena through AWS's SDK (@aws-sdk/client-athena), which signs each request (SigV4) with
 * the data source's access key and retries throttled calls with backoff. A query is the API's
 * lifecycle: StartQueryExecution (a ClientRequestToken makes the SDK's retries of it start one
 * query, not two), GetQueryExecution polled with a growing wait until SUCCEEDED, FAILED or
 * CANCELLED, then GetQueryResults page by page (NextToken). A timeout or a client going away
 * stops the query on Athena (StopQueryExecution): it is billed by the data it scans.
 */
export class AthenaDriver implements Driver {
  readonly dialect = 'athena' as const;
  private readonly client: AthenaClient;
  private readonly slots: SlotQueue;

  constructor(private readonly settings: AthenaSettings) {
    const timeout = settings.connectionTimeoutMs ?? 30_000;
    this.client = new AthenaClient({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
      maxAttempts: 3,
      requestHandler: { connectionTimeout: timeout, requestTimeout: timeout },
    });
    this.slots = new SlotQueue(settings.max ?? 10);
  }

  async query(
    sql: string,
    params: readonly unknown[],
    options: QueryOptions = {},
  ): Promise<Record<string, unknown>[]> {
    const { signal } = options;
    if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
    // the tag names Tessera, the deployment and the execution in Athena's query history
    const text = statementTag(this.settings.deploymentId, options.queryId) + inlineParams(sql, params);
    await this.slots.acquire(signal);
    let id: string | undefined;
    const stop = () => {
      if (id) this.stop(id);
    };
    signal?.addEventListener('abort', stop, { once: true });
    try {
      const started = await this.client.send(
        new StartQueryExecutionCommand({
          QueryString: text,
          ClientRequestToken: requestToken(text),
          WorkGroup: this.settings.workgroup ?? 'primary',
          QueryExecutionContext: {
            Catalog: this.settings.catalog ?? 'AwsDataCatalog',
            Database: this.settings.database,
          },
          ...(this.settings.outputLocation
            ? { ResultConfiguration: { OutputLocation: this.settings.outputLocation } }
            : {}),
        }),
      );
      id = started.QueryExecutionId;
      if (!id) throw new WarehouseUnavailableError('Athena started no query', 'failed');
      if (signal?.aborted) {
        stop();
        throw new QueryCancelledError('Query cancelled');
      }
      await this.finished(id, signal);
      return await this.results(id, signal);
    } catch (error) {
      if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
      if (error instanceof QueryCancelledError || error instanceof WarehouseUnavailableError) throw error;
      const sorted = athenaFault(error);
      if (sorted) throw engineFault(error, sorted);
      throw new WarehouseUnavailableError(error, 'unreachable');
    } finally {
      signal?.removeEventListener('abort', stop);
      this.slots.release();
    }
  }

  /** Polls until the query ends: waits double from `first` to `max` (Athena bills no polling). */
  private async finished(id: string, signal: AbortSignal | undefined): Promise<void> {
    const { first, max } = this.settings.pollMs ?? { first: 100, max: 2000 };
    for (let wait = first; ; wait = Math.min(wait * 2, max)) {
      const { QueryExecution: execution } = await this.client.send(
        new GetQueryExecutionCommand({ QueryExecutionId: id }),
        { abortSignal: signal },
      );
      const state = execution?.Status?.State;
      if (state === 'SUCCEEDED') return;
      if (state === 'FAILED') throw failure(execution);
      if (state === 'CANCELLED') {
        if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
        // stopped by someone else (an operator, the workgroup's limits)
        throw new WarehouseUnavailableError('Athena cancelled the query', 'cancelled');
      }
      await sleep(wait, signal);
    }
  }

  /** Every page of the results; the first page's first row repeats the column names. */
  private async results(id: string, signal: AbortSignal | undefined): Promise<Record<string, unknown>[]> {
    const rows: Record<string, unknown>[] = [];
    let columns: ColumnInfo[] | undefined;
    let token: string | undefined;
    let first = true;
    do {
      const page = await this.client.send(
        new GetQueryResultsCommand({ QueryExecutionId: id, MaxResults: pageSize, NextToken: token }),
        { abortSignal: signal },
      );
      columns ??= page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
      const data = page.ResultSet?.Rows ?? [];
      for (const [i, row] of data.entries()) {
        if (first && i === 0 && isHeader(columns, row.Data ?? [])) continue;
        rows.push(rowOf(columns, row.Data ?? []));
      }
      first = false;
      token = page.NextToken;
    } while (token);
    return rows;
  }

  /** Stops the query on Athena; not tied to the aborted signal, and its failure only logged away. */
  private stop(id: string): void {
    this.client.send(new StopQueryExecutionCommand({ QueryExecutionId: id })).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

/**
 * The idempotency token (32 to 128 characters): the SDK's retry of a StartQueryExecution whose
 * answer was lost carries the same token, and Athena answers it with the query already started.
 * Random per call, so that the same SQL asked twice runs twice.
 */
function requestToken(text: string): string {
  return createHash('sha256').update(`${text}\0${process.hrtime.bigint()}\0${Math.random()}`).digest('hex');
}

function failure(execution: QueryExecution | undefined): AthenaQueryError {
  const status = execution?.Status;
  const message = status?.AthenaError?.ErrorMessage ?? status?.StateChangeReason ?? 'Athena query failed';
  return new AthenaQueryError(message, status?.AthenaError?.ErrorCategory, status?.AthenaError?.ErrorType);
}

function isHeader(columns: ColumnInfo[], data: Array<{ VarCharValue?: string }>): boolean {
  return (
    data.length === columns.length && columns.every((c, i) => data[i]?.VarCharValue === (c.Label ?? c.Name))
  );
}

const integerTypes = new Set(['tinyint', 'smallint', 'integer', 'int', 'bigint']);
const floatTypes = new Set(['double', 'real', 'float']);

/**
 * A row by column name. Athena sends every value as text (`VarCharValue`, absent for NULL):
 * integers become numbers (BigInt past 2^53), doubles numbers (NaN and infinities included),
 * booleans booleans; decimals, dates and timestamps stay text, as the Trino driver leaves them,
 * which the result formatter reads.
 */
function rowOf(columns: ColumnInfo[], data: Array<{ VarCharValue?: string }>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  columns.forEach((c, i) => {
    const v = data[i]?.VarCharValue;
    const type = (c.Type ?? '').toLowerCase();
    let value: unknown = v ?? null;
    if (v !== undefined) {
      if (integerTypes.has(type)) value = integerFromText(v);
      else if (floatTypes.has(type)) value = Number(v);
      else if (type === 'boolean') value = v === 'true';
    }
    row[c.Name ?? `_col${i}`] = value;
  });
  return row;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(new QueryCancelledError('Query cancelled'));
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
