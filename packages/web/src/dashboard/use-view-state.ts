import type { Grain } from '@tessera/dashboard';
import { useCallback, useEffect, useState } from 'react';
import { emptyState, parseState, type ViewState, writeState } from './view-state.ts';

/**
 * The controls' state, kept in the URL query string when `sync` (view-state.ts says how): read
 * on mount and on back/forward, written with `replaceState` on each change so that the address
 * bar always holds a link to this view. The router's own history entry (`history.state`) is kept.
 * The dashboard's filter defaults (settings.filters) and its switchers' default grains
 * (settings.timeGrains) fill in what the link does not choose.
 */
export function useViewState(sync: boolean, defaults: Defaults = {}): [ViewState, (next: ViewState) => void] {
  const [state, setState] = useState<ViewState>(() =>
    withDefaults(sync ? parseState(window.location.search) : emptyState, defaults),
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

export interface Defaults {
  /** Filter values by member. */
  equals?: Record<string, string>;
  /** Time grains by time dimension. */
  grains?: Record<string, Grain>;
}

/** `state` with each default the state does not choose otherwise already. */
function withDefaults(state: ViewState, defaults: Defaults): ViewState {
  const equals = { ...state.equals };
  for (const [member, value] of Object.entries(defaults.equals ?? {})) {
    if (equals[member] === undefined && state.contains[member] === undefined) equals[member] = value;
  }
  const grains = { ...defaults.grains, ...state.grains };
  return { ...state, equals, grains };
}
