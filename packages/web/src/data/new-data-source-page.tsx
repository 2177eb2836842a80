import { useCreateDeployment, useTestNewDataSource } from '@tessera/client/react';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { PageHeader } from '../layout/page.tsx';
import { Field } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';
import {
  type ConnectionResult,
  ConnectionStatus,
  DataSourceFields,
  sourceFieldProblems,
  testProblem,
} from './data-source-fields.tsx';
import { initialValues, type KindType, type KindValues, kindOf, kinds, toInput } from './kinds.ts';
import './data.css';

/**
 * `/data-sources/new`: a new data source (a deployment on it). Pick the warehouse kind, fill in its
 * settings, test the connection, save. Saving a source that does not answer is allowed (the
 * warehouse may come up later), and the server keeps it "not connected" until a test passes.
 */
export function NewDataSourcePage() {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [type, setType] = useState<KindType>('postgres');
  const kind = kindOf(type);
  const [values, setValues] = useState<KindValues>(() => initialValues(kind));
  const [problems, setProblems] = useState<Problems>(noProblems);
  const [result, setResult] = useState<ConnectionResult | null>(null);
  const test = useTestNewDataSource({
    onSuccess: (answer) => setResult(answer),
    onError: (error) => setProblems(problemsOf(error)),
  });
  const create = useCreateDeployment({
    onSuccess: (created) => navigate(`/data-sources/${created.id}`),
    onError: (error) => setProblems(problemsOf(error)),
  });
  const change = (next: KindValues) => {
    setValues(next);
    setResult(null);
  };
  const runTest = () => {
    setProblems(noProblems);
    setResult(null);
    test.mutate({ body: toInput(kind, values) });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    create.mutate({ body: { name: name.trim(), dataSource: toInput(kind, values) } });
  };
  const fieldProblems = { ...testProblem(result), ...sourceFieldProblems(problems.fields) };
  return (
    <div className="data-page">
      <PageHeader
        title="Add a data source"
        subtitle="Connect Tessera to a warehouse, then pick tables to model."
        breadcrumbs={[{ label: 'Data', to: '/data-sources' }, { label: 'New data source' }]}
      />
      <form className="card data-source-form" onSubmit={submit} noValidate>
        <div className="card-body">
          <Field label="Name" value={name} onChange={setName} problem={problems.fields.name} required />
          <fieldset className="kind-picker">
            <legend>Warehouse</legend>
            {kinds.map((k) => (
              <label
                key={k.type}
                className={k.type === type ? 'kind-option kind-option-chosen' : 'kind-option'}
              >
                <input
                  type="radio"
                  name="kind"
                  value={k.type}
                  checked={k.type === type}
                  onChange={() => {
                    setType(k.type);
                    change(initialValues(k));
                  }}
                />
                <span className="kind-label">{k.label}</span>
                <span className="kind-description">{k.description}</span>
              </label>
            ))}
          </fieldset>
          <DataSourceFields kind={kind} values={values} onChange={change} problems={fieldProblems} />
          <ConnectionStatus result={result} pending={test.isPending} />
          {problems.other && (
            <p className="form-error" role="alert">
              {problems.other}
            </p>
          )}
          <div className="form-actions">
            <button
              type="button"
              className="button button-secondary"
              onClick={runTest}
              disabled={test.isPending}
            >
              {test.isPending ? 'Testing…' : 'Test connection'}
            </button>
            <button type="submit" className="button button-primary" disabled={create.isPending}>
              {create.isPending ? 'Saving…' : 'Save data source'}
            </button>
          </div>
        </div>
      </form>
    </div>
  );
}
