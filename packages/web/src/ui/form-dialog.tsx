import { type FormEvent, type ReactNode, useState } from 'react';
import { Dialog } from './dialog.tsx';
import { noProblems, type Problems, problemsOf } from './problems.ts';

/**
 * The state of a create/edit form: its values, the server's problems (per field, shown beside the
 * field, and the rest), and a submit handler that clears the last problems before sending. Every
 * Settings dialog had its own copy of these lines.
 */
export function useFormDialog<F extends object>(initial: () => F) {
  const [form, setForm] = useState<F>(initial);
  const [problems, setProblems] = useState<Problems>(noProblems);
  return {
    form,
    setForm,
    /** A setter of one value, for a field's `onChange`. */
    set:
      <K extends keyof F>(name: K) =>
      (value: F[K]) =>
        setForm((old) => ({ ...old, [name]: value })),
    problems,
    fields: problems.fields,
    setProblems,
    /** For a mutation's `onError`: the 400's field problems beside their fields, else one sentence. */
    onError: (error: unknown) => setProblems(problemsOf(error)),
    /** The form's `onSubmit`: no page reload, no stale problems, then `send` with the values. */
    handleSubmit: (send: (form: F) => void) => (event: FormEvent) => {
      event.preventDefault();
      setProblems(noProblems);
      send(form);
    },
  };
}

/**
 * A modal form (ui/dialog.tsx) with Cancel and a submit button that says it is under way, and the
 * problem that belongs to no field under the fields.
 */
export function FormDialog(props: {
  title: string;
  description?: ReactNode;
  onClose: () => void;
  onSubmit: (event: FormEvent) => void;
  pending: boolean;
  problems: Problems;
  /** The submit button, `Save` unless given, and what it says while under way. */
  submitLabel?: string;
  pendingLabel?: string;
  children: ReactNode;
}) {
  return (
    <Dialog
      title={props.title}
      description={props.description}
      onClose={props.onClose}
      onSubmit={props.onSubmit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={props.pending}>
            {props.pending ? (props.pendingLabel ?? 'Saving…') : (props.submitLabel ?? 'Save')}
          </button>
        </>
      )}
    >
      {props.children}
      {props.problems.other && (
        <p className="form-error" role="alert">
          It could not be saved: {props.problems.other}
        </p>
      )}
    </Dialog>
  );
}

/**
 * Which item a list page is editing or deleting, and the sentence that says what was just done
 * (shown in a `role="status"` notice): the state every Settings list page keeps.
 */
export function useListDialogs<T>() {
  const [editing, setEditing] = useState<T | 'new' | null>(null);
  const [deleting, setDeleting] = useState<T | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  return {
    editing,
    /** Opening a dialog clears the last notice, so the next one (even the same words) is news. */
    setEditing: (item: T | 'new' | null) => {
      if (item !== null) setMessage(null);
      setEditing(item);
    },
    deleting,
    setDeleting: (item: T | null) => {
      if (item !== null) setMessage(null);
      setDeleting(item);
    },
    message,
    /** Closes whichever dialog is open and says what it did. */
    done: (text: string) => {
      setEditing(null);
      setDeleting(null);
      setMessage(text);
    },
  };
}
