import type { DashboardTab } from '@tessera/dashboard';
import { type KeyboardEvent, useCallback, useEffect, useRef, useState } from 'react';

/**
 * A tabbed dashboard's tabs (settings.tabs, packages/dashboard settings.ts) as the WAI-ARIA
 * Authoring Practices "Tabs with automatic activation" pattern: one tab stop (the chosen tab), the
 * arrow keys move to and choose the previous or next tab (wrapping), Home and End the first and
 * last; the panel is labelled by its tab and is itself a tab stop.
 */
export function DashboardTabList(props: {
  tabs: readonly DashboardTab[];
  active: string;
  onChange: (id: string) => void;
  /** The id of the element the tabs control (role="tabpanel"). */
  panelId: string;
  idPrefix: string;
}) {
  const { tabs, active } = props;
  const refs = useRef(new Map<string, HTMLButtonElement>());
  const onKeyDown = (e: KeyboardEvent) => {
    const at = tabs.findIndex((t) => t.id === active);
    const to =
      e.key === 'ArrowRight'
        ? (at + 1) % tabs.length
        : e.key === 'ArrowLeft'
          ? (at - 1 + tabs.length) % tabs.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? tabs.length - 1
              : -1;
    if (to < 0) return;
    e.preventDefault();
    props.onChange(tabs[to].id);
    refs.current.get(tabs[to].id)?.focus();
  };
  return (
    <div className="tsr-tabs" role="tablist" aria-label="Dashboard tabs" onKeyDown={onKeyDown}>
      {tabs.map((t) => (
        <button
          key={t.id}
          ref={(el) => {
            if (el) refs.current.set(t.id, el);
            else refs.current.delete(t.id);
          }}
          type="button"
          role="tab"
          id={tabElementId(props.idPrefix, t.id)}
          className="tsr-tab"
          aria-selected={t.id === active}
          aria-controls={props.panelId}
          tabIndex={t.id === active ? 0 : -1}
          data-tab-id={t.id}
          onClick={() => props.onChange(t.id)}
        >
          {t.title}
        </button>
      ))}
    </div>
  );
}

export function tabElementId(prefix: string, tabId: string): string {
  return `${prefix}-tab-${tabId.replace(/[^\w-]/g, '_')}`;
}

/**
 * The chosen tab, kept in the address as `?tab=<id>` when `sync` (a link opens the same tab; the
 * controls' parameters beside it are kept, view-state.ts), replacing the history entry as the
 * controls do. A link naming no tab, or one that no longer exists, opens the first.
 */
export function useActiveTab(
  tabs: readonly DashboardTab[],
  sync: boolean,
): [string | null, (id: string) => void] {
  const read = useCallback(
    () => (sync ? new URLSearchParams(window.location.search).get('tab') : null),
    [sync],
  );
  const [chosen, setChosen] = useState<string | null>(read);
  useEffect(() => {
    if (!sync) return;
    const reread = () => setChosen(read());
    window.addEventListener('popstate', reread);
    return () => window.removeEventListener('popstate', reread);
  }, [sync, read]);
  const choose = useCallback(
    (id: string) => {
      setChosen(id);
      if (!sync) return;
      const { pathname, search, hash } = window.location;
      const params = new URLSearchParams(search);
      params.set('tab', id);
      window.history.replaceState(window.history.state, '', `${pathname}?${params}${hash}`);
    },
    [sync],
  );
  const active = tabs.some((t) => t.id === chosen) ? chosen : (tabs[0]?.id ?? null);
  return [active, choose];
}
