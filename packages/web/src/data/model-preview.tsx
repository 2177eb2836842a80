import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createDataApi, unwrap } from '@tessera/client';
import { useClient } from '@tessera/client/react';
import { useState } from 'react';
import { Card } from '../layout/page.tsx';
import { ErrorState, LoadingState } from '../layout/states.tsx';
import { ReportResults } from '../reports/report-results.tsx';

/**
 * Tries the main branch's model: pick a cube, a measure and a dimension, and read the rows as the
 * data API answers them (`/v1/meta`, then `/v1/load` through the report page's results, numbers in
 * the model's formats). A data-API token from the session, as the report page gets one.
 */
export function ModelPreview({ deploymentId, version }: { deploymentId: number; version: number }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const token = () =>
    queryClient.fetchQuery({
      queryKey: ['data-api-token', deploymentId],
      staleTime: 30 * 60_000,
      queryFn: async () =>
        unwrap(
          await client.POST('/api/v1/deployments/{deploymentId}/token', {
            params: { path: { deploymentId } },
            body: { expiresIn: 3600 },
          }),
        ).serviceApiToken,
    });
  const meta = useQuery({
    queryKey: ['model-preview-meta', deploymentId, version],
    queryFn: async ({ signal }) =>
      createDataApi({
        baseUrl: window.location.origin,
        deploymentId,
        token: await token(),
        retry: false,
      }).meta({
        signal,
      }),
  });
  const [cubeName, setCube] = useState('');
  const [measure, setMeasure] = useState('');
  const [dimension, setDimension] = useState('');
  const [query, setQuery] = useState<string | null>(null);
  const cubes = meta.data?.cubes ?? [];
  const cube = cubes.find((c) => c.name === cubeName) ?? cubes[0];
  const measures = cube?.measures ?? [];
  // Any cube's dimension: the model's joins carry a measure to the cubes it reaches.
  const dimensions = cubes.flatMap((c) => c.dimensions);
  const chosenMeasure = measures.find((m) => m.name === measure)?.name ?? measures[0]?.name ?? '';
  const chosenDimension = dimensions.some((d) => d.name === dimension) ? dimension : '';

  return (
    <Card title="Try the model">
      {meta.isPending ? (
        <LoadingState label="Reading the model…" />
      ) : meta.isError ? (
        <ErrorState
          title="The model could not be read"
          error={meta.error}
          onRetry={() => void meta.refetch()}
        />
      ) : cubes.length === 0 ? (
        <p className="muted">The main branch has no cubes yet.</p>
      ) : (
        <form
          className="preview-form"
          onSubmit={(e) => {
            e.preventDefault();
            const q: Record<string, unknown> = { measures: [chosenMeasure], limit: 100 };
            if (chosenDimension) {
              q.dimensions = [chosenDimension];
              q.order = { [chosenDimension]: 'asc' };
            }
            setQuery(JSON.stringify(q));
          }}
        >
          <p className="muted">Queries read the main branch.</p>
          <div className="preview-controls">
            <label className="inline-field">
              <span>Cube</span>
              <select value={cube?.name ?? ''} onChange={(e) => setCube(e.target.value)}>
                {cubes.map((c) => (
                  <option key={c.name} value={c.name}>
                    {c.title ?? c.name}
                  </option>
                ))}
              </select>
            </label>
            <label className="inline-field">
              <span>Measure</span>
              <select value={chosenMeasure} onChange={(e) => setMeasure(e.target.value)}>
                {measures.map((m) => (
                  <option key={m.name} value={m.name}>
                    {m.title ?? m.name}
                  </option>
                ))}
              </select>
            </label>
            <label className="inline-field">
              <span>Group by</span>
              <select value={chosenDimension} onChange={(e) => setDimension(e.target.value)}>
                <option value="">Nothing</option>
                {cubes.map((c) => (
                  <optgroup key={c.name} label={c.title ?? c.name}>
                    {c.dimensions.map((d) => (
                      <option key={d.name} value={d.name}>
                        {d.shortTitle ?? d.title ?? d.name}
                      </option>
                    ))}
                  </optgroup>
                ))}
              </select>
            </label>
            <button type="submit" className="button button-primary" disabled={!chosenMeasure}>
              Run query
            </button>
          </div>
        </form>
      )}
      {query && (
        <ReportResults
          deploymentId={deploymentId}
          report={{
            id: -version,
            jsonQuery: query,
            sqlQuery: null,
            title: 'Preview',
            spec: null,
            columnFormats: {},
          }}
        />
      )}
    </Card>
  );
}
