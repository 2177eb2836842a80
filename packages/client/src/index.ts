/**
 * `@tessera/client`: the typed client of Tessera's management API (generated from its OpenAPI
 * document), the data API helpers and the agent chat stream. React hooks: `@tessera/client/react`.
 */

export {
  finalAnswer,
  isServiceMetaCall,
  isServiceSqlApiCall,
  isToolError,
  mergeChatMessages,
  mergeMessage,
  parseToolCall,
} from './chat/messages.ts';
export { type ChatStreamOptions, newMessageId, streamChat } from './chat/stream.ts';
export type * from './chat/types.ts';
export { type Client, type ClientOptions, createClient } from './client.ts';
export {
  type CallOptions,
  createDataApi,
  cubeSqlEvents,
  type DataApi,
  type DataApiOptions,
} from './data/data-api.ts';
export type * from './data/types.ts';
export { createTesseraClient, type TesseraClient, type TesseraClientOptions } from './deprecated.ts';
export { ApiError, ChatStreamError, DataApiError, isApiError, unwrap } from './errors.ts';
export {
  type CellFormat,
  type CellFormats,
  type Column,
  type ColumnKind,
  describeColumns,
  formatTime,
  formatValue,
  type Row,
  type RowsMeta,
  type Table,
  titleOf,
  toTable,
} from './format/table.ts';
export type { components, operations, paths } from './generated/schema.ts';
export type { FoldersListResponse, ReportsListResponse } from './list-responses.ts';
export { LineSplitter, readLines } from './ndjson.ts';
export { backoffMs, type RetryEvent, type RetryOptions, retryAfterMs } from './retry.ts';
export type { CallRetryOption, TokenSource } from './transport.ts';
export type {
  ErrorBody,
  ErrorCode,
  Method,
  OperationOf,
  Page,
  PagedPath,
  PageItem,
  PathsWith,
  RequestOptionsOf,
  SuccessBody,
} from './types.ts';
