import { createContext, createElement, type ReactNode, useContext } from 'react';
import type { Client } from '../client.ts';

const ClientContext = createContext<Client | null>(null);

export interface ClientProviderProps {
  client: Client;
  children?: ReactNode;
}

/**
 * Gives the generated hooks their client. Place it inside TanStack Query's
 * `QueryClientProvider`, which holds the cache.
 */
export function ClientProvider({ client, children }: ClientProviderProps) {
  return createElement(ClientContext.Provider, { value: client }, children);
}

/** The client of the nearest ClientProvider. */
export function useClient(): Client {
  const client = useContext(ClientContext);
  if (!client) throw new Error('useClient: no <ClientProvider client={...}> above this component');
  return client;
}
