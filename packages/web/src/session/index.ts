/**
 * The browser session, for every part of the web app: `SessionProvider` (inside TanStack Query's
 * provider; it also provides `@tessera/client/react`'s client), `useSession()`, `useSignedInUser()`
 * and `RequireSession`.
 */
export { RequireSession, safeNextPath, signInPath } from './require-session.tsx';
export {
  type SessionBody,
  SessionProvider,
  type SessionState,
  type SessionUser,
  type SessionValue,
  useSession,
  useSignedInUser,
} from './session.tsx';
