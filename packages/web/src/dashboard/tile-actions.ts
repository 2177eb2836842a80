import { useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@tessera/client';
import { apiQueryKey, useClient } from '@tessera/client/react';
import { useState } from 'react';
import { describeError } from '../api/errors.ts';
import { widgetDataPath as dataPath, type WidgetDataBody } from './api-types.ts';
import { saveBlob } from './download.ts';

const xlsxPath = '/api/v1/deployments/{deploymentId}/dashboards/{publicId}/widgets/{widgetId}/xlsx' as const;

/**
 * The tile menu's actions that ask the server (issue 23 item 3):
 * - Refresh: the widget's query again on the warehouse, past the result cache (`renewQuery`); the
 *   answer replaces the tile's cached rows, so the tile redraws without a second request;
 * - Download XLSX: the same rows as an Excel workbook, built by the server with the model's formats.
 * What failed is said in the tile (`problem`) rather than lost in the console.
 */
export function useTileActions(props: {
  deploymentId: number;
  publicId: string;
  widgetId: string;
  body: WidgetDataBody;
  title: string;
}) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<'refresh' | 'xlsx' | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const params = {
    path: { deploymentId: props.deploymentId, publicId: props.publicId, widgetId: props.widgetId },
  };

  const run = async (what: 'refresh' | 'xlsx', action: () => Promise<void>) => {
    setBusy(what);
    setProblem(null);
    try {
      await action();
    } catch (error) {
      setProblem(
        what === 'refresh'
          ? `Could not refresh: ${describeError(error)}`
          : `Could not make the XLSX: ${describeError(error)}`,
      );
    } finally {
      setBusy(null);
    }
  };

  const refresh = () =>
    run('refresh', async () => {
      const fresh = unwrap(
        await client.POST(dataPath, { params, body: { ...props.body, renewQuery: true } }),
      );
      queryClient.setQueryData(apiQueryKey(dataPath, { params, body: props.body }, 'post'), fresh);
    });

  const downloadXlsx = () =>
    run('xlsx', async () => {
      const file = await client.POST(xlsxPath, { params, body: props.body, parseAs: 'blob' });
      saveBlob(unwrap(file) as unknown as Blob, props.title, 'xlsx');
    });

  return { refresh, downloadXlsx, busy, problem };
}
