import { useId } from 'react';

/** A labelled input with its own problem right under it (`aria-describedby`, `aria-invalid`). */
export function Field(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  problem?: string;
  multiline?: boolean;
  autoFocus?: boolean;
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
        <input {...common} onChange={(e) => props.onChange(e.target.value)} />
      )}
      {props.problem && (
        <p id={problemId} className="field-error">
          {props.problem}
        </p>
      )}
    </div>
  );
}
