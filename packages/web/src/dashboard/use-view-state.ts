import { useCallback, useEffect, useState } from 'react';
import { emptyState, parseState, type ViewState, writeState } from './view-state.ts';

/**
 * The controls' state, kept in the URL query string when `sync` (view-state.ts says how): read
 * on mount and on back/forward, written with `replaceState` on each change so that the address
 * bar always holds a link to this view. The router's own history entry (`history.state`) is kept.
 */
export function useViewState(sync: boolean): [ViewState, (next: ViewState) => void] {
  const [state, setState] = useState<ViewState>(() =>
    sync ? parseState(window.location.search) : emptyState,
  );

  useEffect(() => {
    if (!sync) return;
    const reread = () => setState(parseState(window.location.search));
    window.addEventListener('popstate', reread);
    return () => window.removeEventListener('popstate', reread);
  }, [sync]);

  const update = useCallback(
    (next: ViewState) => {
      setState(next);
      if (!sync) return;
      const { pathname, hash, search } = window.location;
      const query = writeState(search, next);
      if (query !== search)
        window.history.replaceState(window.history.state, '', `${pathname}${query}${hash}`);
    },
    [sync],
  );
  return [state, update];
}
