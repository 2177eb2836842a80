/**
 * `@tessera/client/react`: TanStack Query hooks, one per operation of the management API
 * (generated, see src/generated/hooks.ts), and the provider that gives them a client. A separate
 * entry point, so that code without React never loads it.
 */
export * from '../generated/hooks.ts';
export { TesseraClientProvider, type TesseraClientProviderProps, useTesseraClient } from './deprecated.ts';
export { ClientProvider, type ClientProviderProps, useClient } from './provider.ts';
export {
  type ApiQueryKey,
  apiQueryKey,
  isStaleAfterWrite,
  type MutationHookOptions,
  type QueryHookInit,
  type QueryHookOptions,
} from './runtime.ts';
