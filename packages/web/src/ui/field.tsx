import { type ReactNode, useId } from 'react';

/** A field's problem, right under it (the control points at it with `aria-describedby`). */
function Problem({ id, problem }: { id: string; problem?: string }) {
  if (!problem) return null;
  return (
    <p id={id} className="field-error">
      {problem}
    </p>
  );
}

/** The control, with what may sit right beside it (e.g. the button that saves this one field). */
function WithBeside({ control, beside }: { control: ReactNode; beside?: ReactNode }) {
  if (!beside) return control;
  return (
    <div className="field-control">
      {control}
      {beside}
    </div>
  );
}

/** A labelled input with its own problem right under it (`aria-describedby`, `aria-invalid`). */
export function Field(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  problem?: string;
  multiline?: boolean;
  autoFocus?: boolean;
  /**
   * The input's type (text unless given): `email` and `password` get the right keyboard and
   * password manager; e.g. `number`, `url`, `datetime-local`.
   */
  type?: string;
  /** What the browser may fill in; a password field defaults to `new-password` (never autofilled). */
  autoComplete?: string;
  placeholder?: string;
  required?: boolean;
  disabled?: boolean;
  /** A line under the label saying what to enter. */
  hint?: ReactNode;
  /** Shown right beside the input, e.g. the button that saves this one field. */
  beside?: ReactNode;
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
    disabled: props.disabled,
  };
  const control = props.multiline ? (
    <textarea {...common} rows={4} onChange={(e) => props.onChange(e.target.value)} />
  ) : (
    <input
      {...common}
      type={props.type ?? 'text'}
      autoComplete={props.autoComplete ?? (props.type === 'password' ? 'new-password' : undefined)}
      onChange={(e) => props.onChange(e.target.value)}
    />
  );
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.hint && (
        <p id={hintId} className="field-hint">
          {props.hint}
        </p>
      )}
      <WithBeside control={control} beside={props.beside} />
      <Problem id={problemId} problem={props.problem} />
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
      onChange={(e) => props.onChange(e.target.value as V)}
    >
      {props.options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>
  );
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <WithBeside control={select} beside={props.beside} />
      <Problem id={problemId} problem={props.problem} />
    </div>
  );
}

/** A labelled checkbox, with a line saying what it does and its problem under it like `Field`. */
export function CheckboxField(props: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: ReactNode;
  problem?: string;
  disabled?: boolean;
}) {
  const id = useId();
  const problemId = `${id}-problem`;
  const hintId = `${id}-hint`;
  const describedBy = [props.hint ? hintId : '', props.problem ? problemId : ''].filter(Boolean).join(' ');
  return (
    <div className="field field-checkbox">
      <label className="checkbox" htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          checked={props.checked}
          disabled={props.disabled}
          aria-invalid={props.problem !== undefined}
          aria-describedby={describedBy || undefined}
          onChange={(e) => props.onChange(e.target.checked)}
        />
        {props.label}
      </label>
      {props.hint && (
        <p id={hintId} className="field-hint">
          {props.hint}
        </p>
      )}
      <Problem id={problemId} problem={props.problem} />
    </div>
  );
}
