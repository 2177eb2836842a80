import { isApiError } from '@tessera/client';
import { useUpdateWorkbookDashboard } from '@tessera/client/react';
import type { DashboardDraft } from '@tessera/dashboard';
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from '../widget-tile.tsx';

/** How long the editor waits after the last change before saving (a drag, a word typed). */
const debounceMs = 700;

export type SaveState =
  | { kind: 'saved'; version: number }
  | { kind: 'pending' }
  | { kind: 'saving' }
  | { kind: 'error'; message: string }
  /** Another editor saved first (409): nothing more is saved until the draft is reloaded. */
  | { kind: 'conflict'; message: string };

/**
 * Saves the draft as you edit (issue 23 item 1), debounced, each save naming the draft version it
 * was edited from (`expectedDraftVersion`), so that a draft another editor saved meanwhile is
 * refused (409) rather than overwritten; the editor then says who saved it and offers a reload.
 */
export function useAutosave(
  where: { deploymentId: number; workbookId: number },
  draft: DashboardDraft,
  startVersion: number,
) {
  const save = useUpdateWorkbookDashboard();
  // The mutation's result is a new object on every render: held in a ref, so that `flush` (and the
  // timers that call it) stay put while the editor re-renders.
  const send = useRef(save.mutateAsync);
  send.current = save.mutateAsync;
  const version = useRef(startVersion);
  const saved = useRef(draft);
  const [state, setState] = useState<SaveState>({ kind: 'saved', version: startVersion });
  const inFlight = useRef(false);
  const latest = useRef(draft);
  latest.current = draft;
  const stopped = state.kind === 'conflict';

  const flush = useCallback(async () => {
    if (inFlight.current || latest.current === saved.current) return;
    inFlight.current = true;
    const sending = latest.current;
    setState({ kind: 'saving' });
    try {
      const answer = await send.current({
        params: { path: where },
        body: { dashboardDraft: sending, expectedDraftVersion: version.current },
      });
      version.current = answer.dashboardDraftVersion;
      saved.current = sending;
      setState(
        latest.current === sending ? { kind: 'saved', version: version.current } : { kind: 'pending' },
      );
    } catch (error) {
      if (isApiError(error) && error.status === 409)
        setState({ kind: 'conflict', message: errorText(error) });
      else setState({ kind: 'error', message: errorText(error) });
    } finally {
      inFlight.current = false;
    }
  }, [where]);

  useEffect(() => {
    if (stopped || draft === saved.current) return;
    setState((s) => (s.kind === 'saving' || s.kind === 'pending' ? s : { kind: 'pending' }));
    const timer = setTimeout(() => void flush(), debounceMs);
    return () => clearTimeout(timer);
  }, [draft, flush, stopped]);

  // A save that finished while more edits came in: the effect above has already run, so save again.
  useEffect(() => {
    if (state.kind === 'pending' && !inFlight.current && !stopped) {
      const timer = setTimeout(() => void flush(), debounceMs);
      return () => clearTimeout(timer);
    }
  }, [state, flush, stopped]);

  /** Starts over from a draft read from the server (a reload, a restore). */
  const reset = useCallback((next: DashboardDraft, nextVersion: number) => {
    version.current = nextVersion;
    saved.current = next;
    latest.current = next;
    setState({ kind: 'saved', version: nextVersion });
  }, []);

  // A change not yet seen by the effect above (it runs after the paint) is already unsaved: the
  // status never says "saved" for a draft the server does not have.
  const shown: SaveState = state.kind === 'saved' && draft !== saved.current ? { kind: 'pending' } : state;
  return { state: shown, reset, version, flush };
}
