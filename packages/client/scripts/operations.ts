/**
 * What the generator reads from the OpenAPI document: the management operations (the ones behind
 * `bearerAuth`, spec section 5), whether each is a read or a write, and which reads a write makes
 * stale. Pure functions of the document, so that tests can check them on literal data.
 */

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** The parts of an OpenAPI 3.1 document the generator looks at. */
export interface OpenApiDocument {
  security?: Record<string, string[]>[];
  paths: Record<string, Partial<Record<HttpMethod, OpenApiOperation>>>;
  [key: string]: unknown;
}

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { required?: boolean };
  responses?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  path: string;
  summary: string;
  /** A read gets a query hook; a write a mutation hook that invalidates `invalidates`. */
  kind: 'read' | 'write';
  /** Whether the caller must pass `params` (a path parameter or a required query parameter). */
  paramsRequired: boolean;
  bodyRequired: boolean;
  /** Read paths whose cached answers this write makes stale (writes only). */
  invalidates: string[];
}

/** The scheme of the management API (`Authorization: Bearer`); the data API declares its own. */
export const MANAGEMENT_SCHEME = 'bearerAuth';

function isManagement(document: OpenApiDocument, operation: OpenApiOperation): boolean {
  const security = operation.security ?? document.security ?? [];
  return security.some((requirement) => MANAGEMENT_SCHEME in requirement);
}

/**
 * Reads are GETs, plus the POSTs that only answer a question (a body too large for a query
 * string): their operationId starts with get, list or search (after SCIM's `scim` prefix), e.g.
 * `getDashboardWidgetData` and SCIM's `/.search` (RFC 7644 section 3.4.3).
 */
export function isRead(method: HttpMethod, operationId: string): boolean {
  if (method === 'get') return true;
  return /^(?:get|list|search|scim(?:Get|List|Search))(?:[A-Z]|$)/.test(operationId);
}

/** The management operations of the document, in document order. */
export function listOperations(document: OpenApiDocument): Operation[] {
  const found: Omit<Operation, 'invalidates'>[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation?.operationId || !isManagement(document, operation)) continue;
      const parameters = operation.parameters ?? [];
      found.push({
        operationId: operation.operationId,
        method,
        path,
        summary: operation.summary ?? '',
        kind: isRead(method, operation.operationId) ? 'read' : 'write',
        paramsRequired: parameters.some((p) => p.in === 'path' || (p.in === 'query' && p.required)),
        bodyRequired: operation.requestBody?.required === true,
      });
    }
  }
  const readPaths = [...new Set(found.filter((o) => o.kind === 'read').map((o) => o.path))];
  return found.map((o) => ({
    ...o,
    invalidates: o.kind === 'write' ? staleReads(o.path, readPaths) : [],
  }));
}

const segments = (path: string) => path.split('/').filter(Boolean);
const isParam = (segment: string) => segment.startsWith('{');

/**
 * The collection a write belongs to: its path without trailing path parameters and action words
 * (segments with no read of their own, such as `publish`, `move` or `rename`), down to a static
 * segment that can be read. `PUT .../folders/{folderId}` and `POST .../folders` belong to
 * `.../folders`; `POST .../workbooks/{workbookId}/publish` to `.../workbooks`.
 */
export function collectionOf(writePath: string, readPaths: readonly string[]): string | undefined {
  const reads = new Set(readPaths);
  const parts = segments(writePath);
  for (let end = parts.length; end > 0; end--) {
    const candidate = `/${parts.slice(0, end).join('/')}`;
    if (!isParam(parts[end - 1]) && reads.has(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The reads a write makes stale: every read whose path is a prefix of the write's path, from its
 * collection down (the list, the item, the item's own sub-resource), and, for a write to an item
 * itself (`.../folders/{folderId}`), the reads below that item (`.../folders/{folderId}/ancestors`).
 * Query keys are matched on the write's path parameter values at run time, so a folder created in
 * deployment 1 leaves deployment 2's lists alone.
 */
export function staleReads(writePath: string, readPaths: readonly string[]): string[] {
  const collection = collectionOf(writePath, readPaths);
  if (!collection) return [];
  const write = segments(writePath);
  const collectionLength = segments(collection).length;
  const writesItem = write.length === collectionLength + 1 && isParam(write[collectionLength]);
  return readPaths.filter((read) => {
    const parts = segments(read);
    if (parts.length < collectionLength) return false;
    const isPrefix = parts.length <= write.length && parts.every((p, i) => p === write[i]);
    const belowItem = writesItem && parts.length > write.length && write.every((p, i) => p === parts[i]);
    return isPrefix || belowItem;
  });
}

/** `getFolders` -> `useGetFolders`. */
export function hookName(operationId: string): string {
  return `use${operationId[0].toUpperCase()}${operationId.slice(1)}`;
}
