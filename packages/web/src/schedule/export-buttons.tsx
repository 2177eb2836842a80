import { unwrap } from '@tessera/client';
import { useClient } from '@tessera/client/react';
import { useState } from 'react';
import { describeError } from '../api/errors.ts';
import type { DashboardViewChoice } from './schedule-dialog.tsx';

type Format = 'png' | 'pdf';
const exportsPath = '/api/v1/deployments/{deploymentId}/dashboard-exports' as const;
/** How long a render may take before the page gives up waiting (the job lives 5 minutes). */
const patienceMs = 120_000;

/**
 * Export the dashboard as it is shown now (its filters and time grains) as PNG or PDF, through
 * the Dashboard Exports group (spec 4.5): start, poll the job, then save the file. The server
 * renders under the user's own security context.
 */
export function ExportButtons({
  deploymentId,
  publicId,
  fileName,
  view,
}: {
  deploymentId: number;
  publicId: string;
  fileName: string;
  /** The view at the moment of the click (the controls keep it in the address). */
  view: () => DashboardViewChoice;
}) {
  const client = useClient();
  const [busy, setBusy] = useState<Format | null>(null);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);

  const exportAs = async (format: Format) => {
    setBusy(format);
    setMessage(null);
    try {
      const { filters, timeGrains } = view();
      const job = unwrap(
        await client.POST(exportsPath, {
          params: { path: { deploymentId } },
          body: { format, dashboardPublicId: publicId, filters, timeGrains },
        }),
      );
      const path = { deploymentId, jobId: job.jobId };
      const deadline = Date.now() + patienceMs;
      for (;;) {
        const state = unwrap(await client.GET(`${exportsPath}/{jobId}`, { params: { path } }));
        if (state.status === 'failed') throw new Error(state.error ?? 'The render failed.');
        if (state.status === 'completed') break;
        if (Date.now() > deadline) throw new Error('The render took too long; try again.');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const file = await client.GET(`${exportsPath}/{jobId}/download`, {
        params: { path, query: { filename: fileName } },
        parseAs: 'blob',
      });
      saveFile(unwrap(file) as unknown as Blob, `${fileName}.${format}`);
      setMessage({ error: false, text: `Saved ${fileName}.${format}.` });
    } catch (error) {
      setMessage({
        error: true,
        text: `The ${format.toUpperCase()} could not be made: ${describeError(error)}`,
      });
    } finally {
      setBusy(null);
    }
  };

  return (
    <span className="sch-export">
      {(['png', 'pdf'] as const).map((format) => (
        <button
          key={format}
          type="button"
          className="button button-secondary"
          disabled={busy !== null}
          onClick={() => void exportAs(format)}
        >
          {busy === format ? 'Rendering…' : `Export ${format.toUpperCase()}`}
        </button>
      ))}
      <span className={message?.error ? 'form-error' : 'visually-hidden'} role="status" aria-live="polite">
        {message?.text}
      </span>
    </span>
  );
}

function saveFile(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file name stem the download route accepts (letters, digits, `._ -`), from the title. */
export function fileStem(title: string): string {
  const stem = title
    .replace(/[^A-Za-z0-9._ -]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100);
  return stem === '' ? 'dashboard' : stem;
}
