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
  type?: 'text' | 'email' | 'password';
  autoComplete?: string;
}) {
  const id = useId();
  const problemId = `${id}-problem`;
  const common = {
    id,
    value: props.value,
    'aria-invalid': props.problem !== undefined,
    'aria-describedby': props.problem ? problemId : undefined,
    autoFocus: props.autoFocus,
  };
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.multiline ? (
        <textarea {...common} rows={4} onChange={(e) => props.onChange(e.target.value)} />
      ) : (
        <input
          {...common}
          type={props.type ?? 'text'}
          autoComplete={props.autoComplete}
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
