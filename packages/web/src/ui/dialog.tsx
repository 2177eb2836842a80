import { type FormEvent, type ReactNode, useId } from 'react';
import { useModalDialog } from './modal.ts';

/** A modal dialog (ui/modal.ts: focus, Escape, inert page) with a heading and its buttons. */
export function Dialog(props: {
  title: string;
  alert?: boolean;
  description?: ReactNode;
  onClose: () => void;
  onSubmit?: (event: FormEvent) => void;
  children: ReactNode;
  buttons: (close: () => void) => ReactNode;
}) {
  const dialog = useModalDialog();
  const headingId = useId();
  const close = () => dialog.current?.close();
  const body = (
    <>
      <h2 id={headingId}>{props.title}</h2>
      {props.description && <p id={`${headingId}-what`}>{props.description}</p>}
      {props.children}
      <div className="dialog-buttons">{props.buttons(close)}</div>
    </>
  );
  return (
    <dialog
      ref={dialog}
      className="dialog"
      role={props.alert ? 'alertdialog' : undefined}
      aria-labelledby={headingId}
      aria-describedby={props.description ? `${headingId}-what` : undefined}
      onClose={props.onClose}
    >
      {props.onSubmit ? (
        <form onSubmit={props.onSubmit} noValidate>
          {body}
        </form>
      ) : (
        body
      )}
    </dialog>
  );
}
