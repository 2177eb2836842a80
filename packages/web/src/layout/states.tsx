import type { ReactNode } from 'react';
import { describeError, errorStatus } from '../api/errors.ts';
import { AlertIcon, InboxIcon } from './icons.tsx';

/** A quiet spinner with a label that screen readers announce. */
export function LoadingState({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/** The whole page waits (first load of the session). */
export function FullPageLoading() {
  return (
    <div className="page-center">
      <LoadingState />
    </div>
  );
}

export interface ErrorStateProps {
  title?: string;
  /** A sentence; or pass `error` and it is described from the server's answer. */
  message?: string;
  error?: unknown;
  onRetry?: () => void;
}

/**
 * A failed load: what happened, in words, and a way to try again, unless the server's answer was
 * final (a 4xx other than 429: trying again would get the same answer).
 */
export function ErrorState({ title = 'Something went wrong', message, error, onRetry }: ErrorStateProps) {
  const status = errorStatus(error);
  const final = status !== undefined && status >= 400 && status < 500 && status !== 429;
  return (
    <div className="state state-error" role="alert">
      <AlertIcon className="state-icon" />
      <div>
        <p className="state-title">{title}</p>
        <p className="state-message">{message ?? describeError(error)}</p>
        {onRetry && !final && (
          <button type="button" className="button button-secondary" onClick={onRetry}>
            Try again
          </button>
        )}
      </div>
    </div>
  );
}

/** Nothing to show, said plainly, with what to do next when there is something. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <InboxIcon className="state-icon" />
      <div>
        <p className="state-title">{title}</p>
        {children && <div className="state-message">{children}</div>}
      </div>
    </div>
  );
}
