import { useId } from 'react';

/** A labelled input with its own problem right under it (`aria-describedby`, `aria-invalid`). */
export function Field(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  problem?: string;
  multiline?: boolean;
  autoFocus?: boolean;
  /** The input's type; a password is never autofilled from the browser's store of this site. */
  type?: 'text' | 'password' | 'number';
  placeholder?: string;
  required?: boolean;
}) {
  const id = useId();
  const problemId = `${id}-problem`;
  const common = {
    id,
    value: props.value,
    'aria-invalid': props.problem !== undefined,
    'aria-describedby': props.problem ? problemId : undefined,
    autoFocus: props.autoFocus,
    placeholder: props.placeholder,
    required: props.required,
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
          autoComplete={props.type === 'password' ? 'new-password' : undefined}
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
