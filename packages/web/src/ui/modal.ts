import { useEffect, useRef } from 'react';

/**
 * A native modal `<dialog>` opened while its component is mounted: focus moves into it (to its
 * `autoFocus` control, or its first), Escape closes it, the page behind is inert; the browser does
 * the keyboard part, so every dialog of the creator's actions behaves the same.
 */
export function useModalDialog() {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return dialog;
}
