import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { JSDOM } from 'jsdom';
import { createElement, type ReactNode } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type Client, createClient } from '../src/index.ts';
import { ClientProvider, useCreateFolder, useGetAppConfig, useGetFolders } from '../src/react/index.ts';
import { type ListeningServer, startListening, unique } from './support.ts';

// A DOM for React to render into, and nothing else of jsdom: the server under test runs in this
// process and needs Node's own Blob, AbortController and fetch (vitest's jsdom environment swaps them).
const dom = new JSDOM('<!doctype html><html><body></body></html>', { url: 'http://127.0.0.1/' });
Object.assign(globalThis, {
  window: dom.window,
  document: dom.window.document,
  IS_REACT_ACT_ENVIRONMENT: true,
});
// Node 21 and later have a global navigator; Node 20 does not.
const ownNavigator = !('navigator' in globalThis);
if (ownNavigator) Object.assign(globalThis, { navigator: dom.window.navigator });
/**
 * Test files share a worker (vitest.config.ts): the next file must not find a browser's globals
 * (a server file whose code checks for `window` took the browser's path and timed out).
 */
function removeDomGlobals() {
  const globals = globalThis as Record<string, unknown>;
  for (const name of [
    'window',
    'document',
    'IS_REACT_ACT_ENVIRONMENT',
    ...(ownNavigator ? ['navigator'] : []),
  ])
    delete globals[name];
  dom.window.close();
}
const { act, renderHook, waitFor } = await import('@testing-library/react');

/** The generated hooks rendered in jsdom against a listening server. */
describe('React hooks', () => {
  let s: ListeningServer;
  let client: Client;
  const requested: string[] = [];
  beforeAll(async () => {
    s = await startListening();
    client = createClient({
      baseUrl: s.baseUrl,
      token: s.server.adminKey,
      fetch: (request) => {
        requested.push(`${request.method} ${new URL(request.url).pathname}${new URL(request.url).search}`);
        return fetch(request);
      },
    });
  });
  afterAll(async () => {
    await s?.close();
    removeDomGlobals();
  });

  function wrapper() {
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    return ({ children }: { children?: ReactNode }) =>
      createElement(
        QueryClientProvider,
        { client: queryClient },
        createElement(ClientProvider, { client }, children),
      );
  }

  it('reads with a query hook and a write invalidates the list it changed, not other deployments', async () => {
    const demo = s.server.demoDeploymentId;
    const other = await s.client.POST('/api/v1/deployments', { body: { name: unique('other') } });
    const otherId = other.data!.id;
    const { result } = renderHook(
      () => ({
        demoFolders: useGetFolders({ params: { path: { deploymentId: demo } } }),
        otherFolders: useGetFolders({ params: { path: { deploymentId: otherId } } }),
        create: useCreateFolder(),
      }),
      { wrapper: wrapper() },
    );
    await waitFor(() =>
      expect(result.current.demoFolders.isSuccess && result.current.otherFolders.isSuccess).toBe(true),
    );
    const otherReads = () =>
      requested.filter((r) => r === `GET /api/v1/deployments/${otherId}/folders`).length;
    expect(otherReads()).toBe(1);

    const name = unique('from-hook');
    await act(async () => {
      await result.current.create.mutateAsync({ params: { path: { deploymentId: demo } }, body: { name } });
    });
    await waitFor(() => expect(result.current.demoFolders.data?.items.map((f) => f.name)).toContain(name));
    expect(otherReads()).toBe(1);
  });

  it('gives a failed read as an ApiError with the problem body', async () => {
    const { result } = renderHook(() => useGetFolders({ params: { path: { deploymentId: 987654 } } }), {
      wrapper: wrapper(),
    });
    await waitFor(() => expect(result.current.isError).toBe(true));
    expect(result.current.error).toBeInstanceOf(ApiError);
    expect(result.current.error?.status).toBe(404);
    expect(result.current.error?.body.code).toMatch(/not_found$/);
  });

  it('reads an operation without parameters', async () => {
    const { result } = renderHook(() => useGetAppConfig(), { wrapper: wrapper() });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(typeof result.current.data?.applyThemeGlobally).toBe('boolean');
  });
});
