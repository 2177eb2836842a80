import { isApiError } from '@tessera/client';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { createAppClient } from '../api/client.ts';
import { LogoMark } from '../layout/icons.tsx';
import { FullPageLoading } from '../layout/states.tsx';
import { safeNextPath } from '../session/require-session.tsx';
import { useSession } from '../session/session.tsx';

interface FieldProblem {
  pointer?: unknown;
  field?: unknown;
  name?: unknown;
  detail?: unknown;
  message?: unknown;
}

/** Words for a failed sign-in, from the server's answer (problem+json) or the network. */
function signInMessage(error: unknown): { message: string; field?: 'email' | 'password' } {
  if (!isApiError(error))
    return { message: 'The server could not be reached. Check your connection and try again.' };
  if (error.status === 401) return { message: 'The email or password is not correct.' };
  if (error.status === 429) return { message: 'Too many attempts. Wait a minute, then try again.' };
  if (error.status === 400) {
    const body = (error.body ?? {}) as { detail?: unknown; errors?: FieldProblem[] };
    const first = body.errors?.[0];
    const where = String(first?.pointer ?? first?.field ?? first?.name ?? '');
    const field = where.includes('password') ? 'password' : where.includes('email') ? 'email' : undefined;
    const detail = first?.detail ?? first?.message ?? body.detail;
    return { message: typeof detail === 'string' ? detail : 'Check the email and password.', field };
  }
  if (error.status === 403) return { message: 'This account cannot sign in. Ask an administrator.' };
  return { message: 'The server could not sign you in. Try again in a moment.' };
}

/** Words for the reason the OpenID sign-in sends back (`?error=`). */
function providerProblem(reason: string): string {
  if (reason === 'access_denied') return 'The identity provider did not sign you in.';
  if (reason === 'user_not_allowed') return 'Your account cannot sign in here. Ask an administrator.';
  if (reason === 'unknown_or_expired_state')
    return 'The sign-in took too long or was already used. Try again.';
  return 'Signing in with the identity provider failed. Try again.';
}

/** The external OpenID provider users may sign in with (GET /api/v1/session/providers), if any. */
function useOidcProvider(): { name: string; signInUrl: string } | null {
  const [provider, setProvider] = useState<{ name: string; signInUrl: string } | null>(null);
  useEffect(() => {
    createAppClient({ csrfToken: null })
      .GET('/api/v1/session/providers')
      .then(({ data }) => setProvider(data?.oidc ?? null))
      .catch(() => setProvider(null));
  }, []);
  return provider;
}

/** `/sign-in`: email and password (POST /api/v1/session), then back to where the user was going. */
export function SignInPage() {
  const { state, signIn } = useSession();
  const [searchParams] = useSearchParams();
  const next = safeNextPath(searchParams.get('next'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<{ message: string; field?: 'email' | 'password' } | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const errorId = useId();
  const provider = useOidcProvider();
  const providerError = searchParams.get('error');
  const showForm = state.status !== 'loading' && state.status !== 'signed-in';
  // The email field takes the focus when the form appears: a keyboard user types at once.
  useEffect(() => {
    if (showForm) emailRef.current?.focus();
  }, [showForm]);

  if (state.status === 'loading') return <FullPageLoading />;
  if (state.status === 'signed-in') return <Navigate to={next} replace />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (email.trim() === '' || password === '') {
      const field = email.trim() === '' ? 'email' : 'password';
      setProblem({ message: field === 'email' ? 'Enter your email.' : 'Enter your password.', field });
      (field === 'email' ? emailRef : passwordRef).current?.focus();
      return;
    }
    setBusy(true);
    setProblem(null);
    const error = await signIn(email.trim(), password);
    setBusy(false);
    if (error) {
      const described = signInMessage(error);
      setProblem(described);
      if (described.field === 'email') emailRef.current?.focus();
      else {
        setPassword('');
        passwordRef.current?.focus();
      }
    }
  };

  const notice =
    state.status === 'signed-out' && state.reason === 'expired'
      ? 'Your session has ended. Sign in again to continue.'
      : state.status === 'signed-out' && state.reason === 'signed-out'
        ? 'You are signed out.'
        : null;

  return (
    <div className="sign-in">
      <main className="sign-in-panel">
        <div className="sign-in-brand">
          <LogoMark />
          <span>Tessera</span>
        </div>
        <h1>Sign in</h1>
        <p className="muted">Use the email and password of your Tessera account.</p>
        {providerError && !problem && (
          <div className="form-error" role="alert">
            {providerProblem(providerError)}
          </div>
        )}
        {notice && !problem && !providerError && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        {problem && (
          <div className="form-error" role="alert" id={errorId}>
            {problem.message}
          </div>
        )}
        <form onSubmit={submit} noValidate>
          <div className="field">
            <label htmlFor="sign-in-email">Email</label>
            <input
              ref={emailRef}
              id="sign-in-email"
              name="email"
              type="email"
              autoComplete="username"
              inputMode="email"
              required
              value={email}
              aria-invalid={problem?.field === 'email' || undefined}
              aria-describedby={problem ? errorId : undefined}
              onChange={(event) => setEmail(event.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="sign-in-password">Password</label>
            <input
              ref={passwordRef}
              id="sign-in-password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              aria-invalid={
                problem?.field === 'password' || (problem !== null && !problem.field) || undefined
              }
              aria-describedby={problem ? errorId : undefined}
              onChange={(event) => setPassword(event.target.value)}
            />
          </div>
          <button type="submit" className="button button-primary button-block" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        {provider && (
          <>
            <p className="sign-in-or muted">or</p>
            <a className="button button-secondary button-block" href={provider.signInUrl}>
              Sign in with {provider.name}
            </a>
          </>
        )}
      </main>
      <footer className="sign-in-footer">
        <a href="/api/docs">API reference</a>
        <span aria-hidden="true">·</span>
        <a href="/api/openapi.json">OpenAPI document</a>
      </footer>
    </div>
  );
}
