import { useId } from 'react';
import { Field } from '../ui/field.tsx';
import { type Kind, type KindValues, shownFields } from './kinds.ts';

export interface ConnectionResult {
  ok: boolean;
  problem: string | null;
  message: string;
  field: string | null;
  durationMs: number;
}

/**
 * The settings of one warehouse kind, field by field from its entry in kinds.ts. A field's problem
 * is the API's (a 400 naming it) or a failed connection test's that names it.
 */
export function DataSourceFields({
  kind,
  values,
  onChange,
  problems,
  savedSecrets = new Set<string>(),
}: {
  kind: Kind;
  values: KindValues;
  onChange: (values: KindValues) => void;
  problems: Record<string, string>;
  /** Secret fields with a saved value (kinds.ts `savedSecrets`): empty keeps it. */
  savedSecrets?: ReadonlySet<string>;
}) {
  const checkboxId = useId();
  return (
    <div className="data-source-fields">
      {shownFields(kind, values).map((f) =>
        f.input === 'checkbox' ? (
          <div className="field field-checkbox" key={f.name}>
            <input
              id={`${checkboxId}-${f.name}`}
              type="checkbox"
              checked={values[f.name] === 'true'}
              onChange={(e) => onChange({ ...values, [f.name]: e.target.checked ? 'true' : '' })}
            />
            <label htmlFor={`${checkboxId}-${f.name}`}>{f.label}</label>
            {problems[f.name] && <p className="field-error">{problems[f.name]}</p>}
            {f.hint && <p className="field-hint">{f.hint}</p>}
          </div>
        ) : (
          <div key={f.name} className={`data-source-field data-source-field-${f.name}`}>
            <Field
              label={f.label}
              type={f.input === 'textarea' ? undefined : f.input}
              multiline={f.input === 'textarea'}
              value={values[f.name] ?? ''}
              onChange={(v) => onChange({ ...values, [f.name]: v })}
              problem={problems[f.name]}
              required={f.required}
              placeholder={savedSecrets.has(f.name) ? 'Saved; leave empty to keep it' : f.placeholder}
            />
            {f.hint && <p className="field-hint">{f.hint}</p>}
          </div>
        ),
      )}
    </div>
  );
}

/** The outcome of a connection test, said in a status line that screen readers announce. */
export function ConnectionStatus({ result, pending }: { result: ConnectionResult | null; pending: boolean }) {
  if (pending)
    return (
      <p className="connection-status" role="status">
        Testing the connection…
      </p>
    );
  if (!result) return <p className="connection-status" role="status" />;
  return (
    <p
      className={result.ok ? 'connection-status connection-ok' : 'connection-status connection-failed'}
      role="status"
      data-ok={result.ok}
    >
      <strong>{result.ok ? 'Connected.' : 'Connection failed.'}</strong>{' '}
      {result.ok ? `The data source answered in ${result.durationMs} ms.` : result.message}
    </p>
  );
}

/** Field problems of a 400 on a data source, by the field's own name (`dataSource/host` → `host`). */
export function sourceFieldProblems(fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) out[k.replace(/^dataSource\//, '')] ??= v;
  return out;
}

/** A failed test points at the field it names; its words are in the status line under the form. */
export function testProblem(result: ConnectionResult | null): Record<string, string> {
  return result && !result.ok && result.field ? { [result.field]: 'Check this setting.' } : {};
}
