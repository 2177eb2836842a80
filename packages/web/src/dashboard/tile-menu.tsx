import { useEffect, useId, useRef, useState } from 'react';

export interface TileMenuItem {
  label: string;
  /** A button's action, or a link's address (opened in the app). */
  onSelect?: () => void;
  href?: string;
}

/**
 * A tile's menu (issue 23 item 3): view as table or chart, download CSV, open in Explore. A
 * disclosure button with a list of actions; Escape or a click elsewhere closes it, and focus
 * returns to the button.
 */
export function TileMenu({ title, items }: { title: string; items: TileMenuItem[] }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    const onEscape = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('mousedown', away);
    document.addEventListener('keydown', onEscape);
    return () => {
      document.removeEventListener('mousedown', away);
      document.removeEventListener('keydown', onEscape);
    };
  }, [open]);
  if (items.length === 0) return null;
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  return (
    <div className="tsr-tile-menu" ref={root}>
      <button
        ref={button}
        type="button"
        className="tsr-tile-menu-button"
        aria-expanded={open}
        aria-controls={id}
        aria-label={`More for ${title || 'this widget'}`}
        onClick={() => setOpen((o) => !o)}
      >
        ⋯
      </button>
      {open ? (
        <ul id={id} className="tsr-tile-menu-list">
          {items.map((item) => (
            <li key={item.label}>
              {item.href ? (
                <a href={item.href} onClick={() => setOpen(false)}>
                  {item.label}
                </a>
              ) : (
                <button
                  type="button"
                  onClick={() => {
                    item.onSelect?.();
                    close();
                  }}
                >
                  {item.label}
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
