import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { ErrorState, FullPageLoading } from '../layout/states.tsx';
import { useSession } from './session.tsx';

/** The sign-in page's address that leads back to `path` afterwards. */
export function signInPath(path: string): string {
  return path === '/' || path === '' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(path)}`;
}

/**
 * Where to go after signing in: the `next` parameter when it is a path of this app, never another
 * origin (`//host`, `https:`, `/\host`), so that a crafted link cannot send the user elsewhere.
 */
export function safeNextPath(next: string | null): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (next === '/sign-in' || next.startsWith('/sign-in?')) return '/';
  return next;
}

/** Renders its children only with a session; otherwise sends the user to sign in, and back here after. */
export function RequireSession({ children }: { children?: ReactNode }) {
  const { state } = useSession();
  const location = useLocation();
  if (state.status === 'loading') return <FullPageLoading />;
  if (state.status === 'unknown') {
    return (
      <div className="page-center">
        <ErrorState
          title="Tessera could not be reached"
          message="The server did not answer. Check that it is running, then try again."
          onRetry={state.retry}
        />
      </div>
    );
  }
  if (state.status === 'signed-out') {
    // After signing out on purpose, the next person starts afresh; an ended session comes back here.
    const to =
      state.reason === 'signed-out' ? '/sign-in' : signInPath(`${location.pathname}${location.search}`);
    return <Navigate to={to} replace />;
  }
  return children;
}
