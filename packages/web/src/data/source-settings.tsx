import { useTestDataSource, useUpdateDeployment } from '@tessera/client/react';
import { type FormEvent, useState } from 'react';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';
import {
  type ConnectionResult,
  ConnectionStatus,
  DataSourceFields,
  sourceFieldProblems,
  testProblem,
} from './data-source-fields.tsx';
import { type KindValues, kindOf, savedSecrets, savedValues, toInput } from './kinds.ts';

/** A data source as the API returns it: its settings and `has<Field>` for each secret. */
interface SavedSource {
  type: string;
  [field: string]: unknown;
}

/**
 * A saved data source's settings, to fix or change: the same fields as a new one (its secrets
 * empty, kept unless typed again), tested before saving, saved with the connection test the
 * server runs on every change. Open from the start while the source does not connect.
 */
export function SourceSettings({
  deploymentId,
  source,
  open,
  onSaved,
}: {
  deploymentId: number;
  source: SavedSource;
  open: boolean;
  onSaved: (result: ConnectionResult | null) => void;
}) {
  const kind = kindOf(source.type);
  const [values, setValues] = useState<KindValues>(() => savedValues(kind, source));
  const [problems, setProblems] = useState<Problems>(noProblems);
  const [result, setResult] = useState<ConnectionResult | null>(null);
  const path = { deploymentId };
  const test = useTestDataSource({
    onSuccess: (answer) => setResult(answer),
    onError: (error) => setProblems(problemsOf(error)),
  });
  const update = useUpdateDeployment({
    onSuccess: (saved) => {
      setResult(saved.connection ?? null);
      onSaved(saved.connection ?? null);
    },
    onError: (error) => setProblems(problemsOf(error)),
  });
  const change = (next: KindValues) => {
    setValues(next);
    setResult(null);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    update.mutate({ params: { path }, body: { dataSource: toInput(kind, values) } });
  };
  const fieldProblems = { ...testProblem(result), ...sourceFieldProblems(problems.fields) };
  return (
    <details className="card source-settings" open={open}>
      <summary className="card-header">
        <h2>Connection settings</h2>
      </summary>
      <form className="card-body data-source-form" onSubmit={submit} noValidate>
        <DataSourceFields
          kind={kind}
          values={values}
          onChange={change}
          problems={fieldProblems}
          savedSecrets={savedSecrets(kind, source)}
        />
        <ConnectionStatus result={result} pending={test.isPending || update.isPending} />
        {problems.other && (
          <p className="form-error" role="alert">
            {problems.other}
          </p>
        )}
        <div className="form-actions">
          <button
            type="button"
            className="button button-secondary"
            disabled={test.isPending}
            onClick={() => {
              setProblems(noProblems);
              setResult(null);
              test.mutate({ params: { path }, body: { dataSource: toInput(kind, values) } });
            }}
          >
            {test.isPending ? 'Testing…' : 'Test these settings'}
          </button>
          <button type="submit" className="button button-primary" disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save settings'}
          </button>
        </div>
      </form>
    </details>
  );
}
