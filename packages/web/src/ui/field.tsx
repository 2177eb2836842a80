import { useId } from 'react';

/** A labelled input with its own problem right under it (`aria-describedby`, `aria-invalid`). */
export function Field(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  problem?: string;
  multiline?: boolean;
  autoFocus?: boolean;
  /** The input's type (`password` for a secret, `url`); default text. */
  type?: string;
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
