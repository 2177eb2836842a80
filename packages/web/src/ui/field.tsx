import { useId } from 'react';

/** A labelled input with its own problem right under it (`aria-describedby`, `aria-invalid`). */
export function Field(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  problem?: string;
  multiline?: boolean;
  autoFocus?: boolean;
  /** The input's type (text unless given): `email` and `password` get the right keyboard and manager. */
  type?: 'text' | 'email' | 'password' | 'number' | 'url';
  /** What the browser may fill in; a password field defaults to `new-password` (never autofilled). */
  autoComplete?: string;
  placeholder?: string;
  required?: boolean;
  /** A line under the label saying what to enter. */
  hint?: string;
}) {
  const id = useId();
  const problemId = `${id}-problem`;
  const hintId = `${id}-hint`;
  const describedBy = [props.hint ? hintId : '', props.problem ? problemId : ''].filter(Boolean).join(' ');
  const common = {
    id,
    value: props.value,
    'aria-invalid': props.problem !== undefined,
    'aria-describedby': describedBy || undefined,
    autoFocus: props.autoFocus,
    placeholder: props.placeholder,
    required: props.required,
  };
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.hint && (
        <p id={hintId} className="field-hint">
          {props.hint}
        </p>
      )}
      {props.multiline ? (
        <textarea {...common} rows={4} onChange={(e) => props.onChange(e.target.value)} />
      ) : (
        <input
          {...common}
          type={props.type ?? 'text'}
          autoComplete={props.autoComplete ?? (props.type === 'password' ? 'new-password' : undefined)}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
      {props.problem && (
        <p id={problemId} className="field-error">
          {props.problem}
        </p>
      )}
    </div>
  );
}

/** A labelled choice among a few options, with its problem under it like `Field`. */
export function SelectField<V extends string>(props: {
  label: string;
  value: V;
  options: readonly { value: V; label: string }[];
  onChange: (value: V) => void;
  problem?: string;
}) {
  const id = useId();
  const problemId = `${id}-problem`;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        aria-invalid={props.problem !== undefined}
        aria-describedby={props.problem ? problemId : undefined}
        onChange={(e) => props.onChange(e.target.value as V)}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {props.problem && (
        <p id={problemId} className="field-error">
          {props.problem}
        </p>
      )}
    </div>
  );
}
