import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withProblemFallback } from '../scripts/fallback-errors.ts';
import {
  collectionOf,
  hookName,
  isRead,
  listOperations,
  type OpenApiDocument,
  staleReads,
} from '../scripts/operations.ts';
import { backoffMs, retryAfterMs } from '../src/index.ts';
import * as react from '../src/react/index.ts';

const document = JSON.parse(
  readFileSync(new URL('../../server/openapi.json', import.meta.url), 'utf8'),
) as OpenApiDocument;

const reads = [
  '/api/v1/deployments',
  '/api/v1/deployments/{deploymentId}',
  '/api/v1/deployments/{deploymentId}/folders',
  '/api/v1/deployments/{deploymentId}/folders/{folderId}/ancestors',
  '/api/v1/deployments/{deploymentId}/workbooks',
  '/api/v1/deployments/{deploymentId}/workbooks/{workbookId}',
  '/api/v1/deployments/{deploymentId}/workspace',
];

describe('which reads a write makes stale', () => {
  it.each([
    ['/api/v1/deployments/{deploymentId}/folders', '/api/v1/deployments/{deploymentId}/folders'],
    ['/api/v1/deployments/{deploymentId}/folders/{folderId}', '/api/v1/deployments/{deploymentId}/folders'],
    [
      '/api/v1/deployments/{deploymentId}/workbooks/{workbookId}/publish',
      '/api/v1/deployments/{deploymentId}/workbooks',
    ],
    ['/api/v1/deployments/{deploymentId}/workspace/move', '/api/v1/deployments/{deploymentId}/workspace'],
    ['/api/v1/deployments/{deploymentId}/token', '/api/v1/deployments'],
  ])('%s belongs to %s', (write, collection) => {
    expect(collectionOf(write, reads)).toBe(collection);
  });

  it('a create invalidates its collection, not the deployment above it', () => {
    expect(staleReads('/api/v1/deployments/{deploymentId}/folders', reads)).toEqual([
      '/api/v1/deployments/{deploymentId}/folders',
    ]);
  });

  it('a write to an item invalidates its collection and the reads below the item', () => {
    expect(staleReads('/api/v1/deployments/{deploymentId}/folders/{folderId}', reads)).toEqual([
      '/api/v1/deployments/{deploymentId}/folders',
      '/api/v1/deployments/{deploymentId}/folders/{folderId}/ancestors',
    ]);
  });

  it('an action on an item invalidates the item and its collection', () => {
    expect(staleReads('/api/v1/deployments/{deploymentId}/workbooks/{workbookId}/publish', reads)).toEqual([
      '/api/v1/deployments/{deploymentId}/workbooks',
      '/api/v1/deployments/{deploymentId}/workbooks/{workbookId}',
    ]);
  });

  it('reads are GETs and the POSTs named get, list or search', () => {
    expect(isRead('get', 'workspaceObjects')).toBe(true);
    expect(isRead('post', 'getDashboardWidgetData')).toBe(true);
    expect(isRead('post', 'scimSearchUsers')).toBe(true);
    expect(isRead('post', 'scimSearch')).toBe(true);
    expect(isRead('post', 'createFolder')).toBe(false);
    expect(isRead('post', 'getawayPlan')).toBe(false);
  });
});

describe('the generated hooks', () => {
  const operations = listOperations(document);

  it('exist for every management operation of the document, and only those', () => {
    expect(operations.length).toBeGreaterThan(50);
    const exported = Object.keys(react).filter((name) => /^use[A-Z]/.test(name) && name !== 'useClient');
    const expected = operations.map((op) => hookName(op.operationId));
    expect(exported.filter((name) => name !== 'useTesseraClient').sort()).toEqual([...expected].sort());
  });

  it('leave out the data API, which has its own credential (spec section 5)', () => {
    const dataOperations = Object.values(document.paths['/data/{deploymentId}/cubejs-api/v1/load'] ?? {});
    expect(dataOperations.length).toBeGreaterThan(0);
    expect(operations.map((op) => op.path)).not.toContain('/data/{deploymentId}/cubejs-api/v1/load');
  });

  it('give an operation without declared errors the generic problem, and leave declared ones alone', () => {
    const doc: OpenApiDocument = {
      security: [{ bearerAuth: [] }],
      paths: {
        '/a': { get: { operationId: 'getA', responses: { 200: {} } } },
        '/b': { get: { operationId: 'getB', responses: { 200: {}, 404: { description: 'declared' } } } },
      },
    };
    const patched = withProblemFallback(doc, listOperations(doc));
    expect(Object.keys(patched.paths['/a'].get!.responses!)).toEqual(['200', 'default']);
    expect(patched.paths['/b'].get!.responses).toEqual({ 200: {}, 404: { description: 'declared' } });
    expect(doc.paths['/a'].get!.responses).toEqual({ 200: {} });
  });
});

describe('Retry-After (RFC 9110 section 10.2.3)', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Sun, 01 Mar 2026 12:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('backs off exponentially, with jitter within half of the step', () => {
    expect([1, 2, 3].map((attempt) => backoffMs(attempt, 100, () => 1))).toEqual([100, 200, 400]);
    expect([1, 2, 3].map((attempt) => backoffMs(attempt, 100, () => 0))).toEqual([50, 100, 200]);
  });
});
