import { type ReactNode, useId } from 'react';

/** A labelled input with its own problem right under it (`aria-describedby`, `aria-invalid`). */
export function Field(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  problem?: string;
  multiline?: boolean;
  autoFocus?: boolean;
  /** The input's type (`text` unless given), e.g. `datetime-local`. */
  type?: string;
  /** A line under the label that says what to write. */
  hint?: ReactNode;
  disabled?: boolean;
  /** Shown right beside the input, e.g. the button that saves this one field. */
  beside?: ReactNode;
}) {
  const id = useId();
  const problemId = `${id}-problem`;
  const hintId = `${id}-hint`;
  const describedBy = [props.hint ? hintId : null, props.problem ? problemId : null]
    .filter(Boolean)
    .join(' ');
  const common = {
    id,
    value: props.value,
    'aria-invalid': props.problem !== undefined,
    'aria-describedby': describedBy || undefined,
    autoFocus: props.autoFocus,
    disabled: props.disabled,
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
      ) : props.beside ? (
        <div className="field-control">
          <input {...common} type={props.type ?? 'text'} onChange={(e) => props.onChange(e.target.value)} />
          {props.beside}
        </div>
      ) : (
        <input {...common} type={props.type ?? 'text'} onChange={(e) => props.onChange(e.target.value)} />
      )}
      {props.problem && (
        <p id={problemId} className="field-error">
          {props.problem}
        </p>
      )}
    </div>
  );
}

/** A labelled select with its problem under it, as `Field` does for inputs. */
export function SelectField<T extends string>(props: {
  label: string;
  value: T;
  options: readonly { value: T; label: string }[];
  onChange: (value: T) => void;
  problem?: string;
  disabled?: boolean;
  /** Shown right beside the select, as `Field`'s. */
  beside?: ReactNode;
}) {
  const id = useId();
  const problemId = `${id}-problem`;
  const select = (
    <select
      id={id}
      value={props.value}
      disabled={props.disabled}
      aria-invalid={props.problem !== undefined}
      aria-describedby={props.problem ? problemId : undefined}
      onChange={(e) => props.onChange(e.target.value as T)}
    >
      {props.options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.beside ? (
        <div className="field-control">
          {select}
          {props.beside}
        </div>
      ) : (
        select
      )}
      {props.problem && (
        <p id={problemId} className="field-error">
          {props.problem}
        </p>
      )}
    </div>
  );
}
