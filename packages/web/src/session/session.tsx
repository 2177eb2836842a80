import { useQueryClient } from '@tanstack/react-query';
import { ApiError, type Client, type SuccessBody } from '@tessera/client';
import { ClientProvider } from '@tessera/client/react';
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { createAppClient } from '../api/client.ts';

/** What `GET`/`POST /api/v1/session` answer: the signed-in user and the session's CSRF token. */
export type SessionBody = SuccessBody<'/api/v1/session', 'get'>;
export type SessionUser = SessionBody['user'];

export type SessionState =
  | { status: 'loading' }
  /** The server could not tell (unreachable, 5xx): the app offers to try again. */
  | { status: 'unknown'; retry: () => void }
  /** `expired`: a call answered 401, so the session ended while the app was open. */
  | { status: 'signed-out'; reason: 'none' | 'expired' | 'signed-out' }
  | { status: 'signed-in'; user: SessionUser; csrfToken: string | null };

export interface SessionValue {
  state: SessionState;
  /** The signed-in user, or null. */
  user: SessionUser | null;
  /** The CSRF token the app's client sends (`x-csrf-token`); null when signed out. */
  csrfToken: string | null;
  /** The client every component uses (also given to `useClient()` and the generated hooks). */
  client: Client;
  /** Signs in; resolves to null, or to the failed call's error (an ApiError or a network error). */
  signIn(email: string, password: string): Promise<unknown | null>;
  /** Ends the session on the server (DELETE /api/v1/session) and forgets every cached answer. */
  signOut(): Promise<void>;
  /**
   * The signed-in user's own details as the server now has them (e.g. after the profile page saved
   * their name), so that the top bar shows them at once rather than at the next sign-in.
   */
  updateUser(changes: Partial<Pick<SessionUser, 'email' | 'firstName' | 'lastName'>>): void;
}

const SessionContext = createContext<SessionValue | null>(null);

/**
 * The browser session (DESIGN.md "Web app and sessions"): asks `GET /api/v1/session` once, keeps
 * the user and CSRF token in memory only (the session id stays in its HttpOnly cookie), gives the
 * app a client that sends the token, and turns any 401 into `signed-out` (`RequireSession` then
 * sends the user to the sign-in page and back). Place it inside TanStack Query's provider.
 */
export function SessionProvider({ children }: { children?: ReactNode }) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  const csrfToken = state.status === 'signed-in' ? state.csrfToken : null;

  // The client is remade when the token changes; the 401 callback must see the latest state.
  const onUnauthorized = useRef(() => {});
  onUnauthorized.current = () => {
    if (state.status !== 'signed-in') return;
    queryClient.clear();
    setState({ status: 'signed-out', reason: 'expired' });
  };
  const client = useMemo(
    () => createAppClient({ csrfToken, onUnauthorized: () => onUnauthorized.current() }),
    [csrfToken],
  );

  const load = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      const { data, response } = await createAppClient({ csrfToken: null }).GET('/api/v1/session');
      if (data) setState({ status: 'signed-in', user: data.user, csrfToken: data.csrfToken });
      else if (response.status === 401) setState({ status: 'signed-out', reason: 'none' });
      else setState({ status: 'unknown', retry: () => void load() });
    } catch {
      setState({ status: 'unknown', retry: () => void load() });
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const signIn = useCallback(
    async (email: string, password: string) => {
      try {
        const { data, error, response } = await client.POST('/api/v1/session', { body: { email, password } });
        if (!data) return new ApiError(response, error);
        // Another user may sign in on this browser: nothing cached for the last one is shown.
        queryClient.clear();
        setState({ status: 'signed-in', user: data.user, csrfToken: data.csrfToken });
        return null;
      } catch (networkError) {
        return networkError;
      }
    },
    [client, queryClient],
  );

  const signOut = useCallback(async () => {
    try {
      await client.DELETE('/api/v1/session');
    } finally {
      queryClient.clear();
      setState({ status: 'signed-out', reason: 'signed-out' });
    }
  }, [client, queryClient]);

  const updateUser = useCallback(
    (changes: Partial<Pick<SessionUser, 'email' | 'firstName' | 'lastName'>>) => {
      setState((old) => (old.status === 'signed-in' ? { ...old, user: { ...old.user, ...changes } } : old));
    },
    [],
  );

  const value = useMemo<SessionValue>(
    () => ({
      state,
      user: state.status === 'signed-in' ? state.user : null,
      csrfToken,
      client,
      signIn,
      signOut,
      updateUser,
    }),
    [state, csrfToken, client, signIn, signOut, updateUser],
  );
  return (
    <SessionContext.Provider value={value}>
      <ClientProvider client={client}>{children}</ClientProvider>
    </SessionContext.Provider>
  );
}

/** The session of the nearest SessionProvider. */
export function useSession(): SessionValue {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession: no <SessionProvider> above this component');
  return session;
}

/** The signed-in user, for components under `RequireSession` (which renders them only then). */
export function useSignedInUser(): SessionUser {
  const { user } = useSession();
  if (!user) throw new Error('useSignedInUser: no one is signed in (render it under <RequireSession>)');
  return user;
}
