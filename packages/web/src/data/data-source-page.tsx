import {
  useGenerateDataModel,
  useGetDataSourceTables,
  useGetDeployment,
  useTestDataSource,
  useUpdateFiles,
} from '@tessera/client/react';
import { useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { idParam } from '../layout/deployment.ts';
import { Card, PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { NotFoundPage } from '../pages/not-found-page.tsx';
import { useSignedInUser } from '../session/session.tsx';
import { problemsOf } from '../ui/problems.ts';
import { type ConnectionResult, ConnectionStatus } from './data-source-fields.tsx';
import { SourceStatus } from './data-sources-page.tsx';
import { kindOf, sourceSummary } from './kinds.ts';
import { SourceSettings } from './source-settings.tsx';
import './data.css';

type TableRef = { schema: string; name: string };
const keyOf = (t: TableRef) => `${t.schema}.${t.name}`;

/**
 * `/data-sources/:deploymentId`: one data source. Test its connection, browse its tables by schema (columns
 * with types, primary and foreign keys), pick some and generate a starting model from them, saved
 * to the main branch and opened in the model editor.
 */
export function DataSourcePage() {
  const deploymentId = idParam(useParams().deploymentId);
  if (deploymentId === null) return <NotFoundPage />;
  return <DataSource deploymentId={deploymentId} />;
}

function DataSource({ deploymentId }: { deploymentId: number }) {
  const user = useSignedInUser();
  const navigate = useNavigate();
  const path = { deploymentId };
  const deployment = useGetDeployment({ params: { path } });
  const tables = useGetDataSourceTables({ params: { path } }, { retry: false });
  const [result, setResult] = useState<ConnectionResult | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [schema, setSchema] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const test = useTestDataSource({
    onSuccess: (answer) => {
      setResult(answer);
      if (answer.ok) void tables.refetch();
    },
    onError: (error) => setProblem(problemsOf(error).other),
  });
  const save = useUpdateFiles({
    onSuccess: () => navigate(`/data-sources/${deploymentId}/model`),
    onError: (error) =>
      setProblem(Object.values(problemsOf(error).fields).join(' ') || problemsOf(error).other),
  });
  const generate = useGenerateDataModel({
    onSuccess: (answer) => save.mutate({ params: { path }, body: { files: answer.files } }),
    onError: (error) =>
      setProblem(Object.values(problemsOf(error).fields).join(' ') || problemsOf(error).other),
  });

  const schemas = tables.data?.schemas ?? [];
  const shown = schemas.find((s) => s.name === schema) ?? schemas.find((s) => s.tables.length > 0) ?? null;
  const allTables = useMemo(() => schemas.flatMap((s) => s.tables), [schemas]);

  if (deployment.isPending) return <LoadingState label="Loading the data source…" />;
  if (deployment.isError)
    return (
      <ErrorState
        title="The data source could not be loaded"
        error={deployment.error}
        onRetry={() => void deployment.refetch()}
      />
    );
  const d = deployment.data;
  const source = d.dataSource;
  const toggle = (t: TableRef) =>
    setChosen((prev) => {
      const next = new Set(prev);
      if (next.has(keyOf(t))) next.delete(keyOf(t));
      else next.add(keyOf(t));
      return next;
    });
  const picked = allTables.filter((t) => chosen.has(keyOf(t)));
  const busy = generate.isPending || save.isPending;
  return (
    <div className="data-page">
      <PageHeader
        title={d.name}
        subtitle={
          <>
            {kindOf(source.type).label}
            {sourceSummary(source)} <SourceStatus step={d.creationStep} />
          </>
        }
        breadcrumbs={[{ label: 'Data', to: '/data-sources' }, { label: d.name }]}
        actions={
          <>
            {user.role === 'admin' && (
              <button
                type="button"
                className="button button-secondary"
                disabled={test.isPending}
                onClick={() => {
                  setResult(null);
                  test.mutate({ params: { path }, body: {} });
                }}
              >
                {test.isPending ? 'Testing…' : 'Test connection'}
              </button>
            )}
            <button
              type="button"
              className="button button-secondary"
              onClick={() => navigate(`/data-sources/${deploymentId}/model`)}
            >
              Edit model
            </button>
          </>
        }
      />
      <ConnectionStatus result={result} pending={test.isPending} />
      {user.role === 'admin' && (
        <SourceSettings
          deploymentId={deploymentId}
          source={source}
          open={d.creationStep === 'databases'}
          onSaved={(saved) => {
            if (saved?.ok) void tables.refetch();
          }}
        />
      )}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      {tables.isPending ? (
        <LoadingState label="Reading the tables…" />
      ) : tables.isError && !tables.data ? (
        <ErrorState
          title="The tables could not be read"
          error={tables.error}
          onRetry={() => void tables.refetch()}
        />
      ) : schemas.length === 0 ? (
        <EmptyState title="No tables">The data source shows this connection no tables.</EmptyState>
      ) : (
        <Card
          title="Tables"
          actions={
            <label className="inline-field">
              <span>Schema</span>
              <select value={shown?.name ?? ''} onChange={(e) => setSchema(e.target.value)}>
                {schemas.map((s) => (
                  <option key={s.name} value={s.name}>
                    {s.name} ({s.tables.length})
                  </option>
                ))}
              </select>
            </label>
          }
        >
          <ul className="table-list" aria-label={`Tables of ${shown?.name ?? ''}`}>
            {(shown?.tables ?? []).map((t) => (
              <li key={keyOf(t)}>
                <label className="table-pick">
                  <input type="checkbox" checked={chosen.has(keyOf(t))} onChange={() => toggle(t)} />
                  <span className="table-name">{t.name}</span>
                </label>
                <p className="table-columns">
                  {t.columns.map((c) => (
                    <span key={c.name} className="column-chip" title={c.nullable ? 'nullable' : 'not null'}>
                      {c.primaryKey && (
                        <abbr title="primary key" className="key-mark">
                          PK
                        </abbr>
                      )}
                      {t.foreignKeys.some((fk) => fk.columns.includes(c.name)) && (
                        <abbr title="foreign key" className="key-mark">
                          FK
                        </abbr>
                      )}
                      {c.name} <span className="muted">{c.type}</span>
                    </span>
                  ))}
                </p>
              </li>
            ))}
          </ul>
          <div className="form-actions">
            <span className="muted">
              {picked.length === 0
                ? 'Pick the tables to model.'
                : `${picked.length} table${picked.length > 1 ? 's' : ''} picked: ${picked.map((t) => t.name).join(', ')}`}
            </span>
            <button
              type="button"
              className="button button-primary"
              disabled={picked.length === 0 || busy}
              onClick={() => {
                setProblem(null);
                generate.mutate({
                  params: { path },
                  body: { tables: picked.map((t) => ({ schema: t.schema, name: t.name })) },
                });
              }}
            >
              {busy ? 'Generating…' : 'Generate model'}
            </button>
          </div>
        </Card>
      )}
    </div>
  );
}
