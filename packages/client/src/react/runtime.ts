import {
  type QueryKey,
  type UseMutationOptions,
  type UseQueryOptions,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { type ApiError, unwrap } from '../errors.ts';
import type { ErrorBody, Method, PathsWith, RequestOptionsOf, SuccessBody } from '../types.ts';
import { useClient } from './provider.ts';

/** What a hook call takes: the operation's `params` (path, query) and, for a POST read, `body`. */
export type QueryHookInit<P extends PathsWith<M>, M extends Method> = Pick<
  RequestOptionsOf<P, M>,
  'params' | 'body'
>;

/** The typed query key of a read: `[path, params]`, and `[path, params, body]` for a POST read. */
export type ApiQueryKey<P extends PathsWith<M>, M extends Method> = readonly [
  path: P,
  params: NonNullable<QueryHookInit<P, M>['params']> | Record<string, never>,
  body?: QueryHookInit<P, M>['body'],
];

/** TanStack Query options of a read hook, with its data and error typed from the document. */
export type QueryHookOptions<P extends PathsWith<M>, M extends Method> = Omit<
  UseQueryOptions<SuccessBody<P, M>, ApiError<ErrorBody<P, M>>, SuccessBody<P, M>, ApiQueryKey<P, M>>,
  'queryKey' | 'queryFn'
>;

/** TanStack Query options of a write hook; `mutate` takes the call's `params` and `body`. */
export type MutationHookOptions<P extends PathsWith<M>, M extends Method> = Omit<
  UseMutationOptions<SuccessBody<P, M>, ApiError<ErrorBody<P, M>>, QueryHookInit<P, M>>,
  'mutationFn'
>;

interface UntypedInit {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown> };
  body?: unknown;
}
type Request = (
  method: Method,
  path: string,
  init: object,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** The query key of a read of `path` with `init` (hooks.ts's keys, for `invalidateQueries` by hand). */
export function apiQueryKey<P extends PathsWith<M>, M extends Method = 'get'>(
  path: P,
  init?: QueryHookInit<P, M>,
  method: M = 'get' as M,
): ApiQueryKey<P, M> {
  const { params, body } = (init ?? {}) as UntypedInit;
  return (method === 'get' ? [path, params ?? {}] : [path, params ?? {}, body]) as unknown as ApiQueryKey<
    P,
    M
  >;
}

export function useApiQuery<P extends PathsWith<M>, M extends Method>(
  method: M,
  path: P,
  init: QueryHookInit<P, M> | undefined,
  options: QueryHookOptions<P, M> | undefined,
) {
  const request = useClient().request as unknown as Request;
  return useQuery({
    ...options,
    queryKey: apiQueryKey<P, M>(path, init, method),
    queryFn: async ({ signal }) =>
      unwrap(await request(method, path, { ...init, signal })) as SuccessBody<P, M>,
  });
}

/**
 * Whether a cached read is made stale by a write: its path is one the generator listed for the
 * write, and every path parameter both share has the same value (a folder written in deployment 1
 * leaves deployment 2's folders alone).
 */
export function isStaleAfterWrite(
  key: QueryKey,
  stalePaths: readonly string[],
  writeParams: Record<string, unknown> | undefined,
): boolean {
  if (typeof key[0] !== 'string' || !stalePaths.includes(key[0])) return false;
  const readParams = (key[1] as UntypedInit['params'])?.path ?? {};
  return Object.entries(readParams).every(
    ([name, value]) => writeParams?.[name] === undefined || String(writeParams[name]) === String(value),
  );
}

export function useApiMutation<P extends PathsWith<M>, M extends Method>(
  method: M,
  path: P,
  stalePaths: readonly string[],
  options: MutationHookOptions<P, M> | undefined,
) {
  const request = useClient().request as unknown as Request;
  const queryClient = useQueryClient();
  type Options = MutationHookOptions<P, M>;
  const onSuccess: Options['onSuccess'] = async (...args) => {
    const writeParams = (args[1] as UntypedInit | undefined)?.params?.path;
    await queryClient.invalidateQueries({
      predicate: (query) => isStaleAfterWrite(query.queryKey, stalePaths, writeParams),
    });
    await options?.onSuccess?.(...args);
  };
  const mutationFn = async (init: QueryHookInit<P, M>) =>
    unwrap(await request(method, path, init ?? {})) as SuccessBody<P, M>;
  return useMutation<SuccessBody<P, M>, ApiError<ErrorBody<P, M>>, QueryHookInit<P, M>>({
    ...options,
    mutationFn,
    onSuccess,
  });
}
