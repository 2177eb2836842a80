import { useQueryClient } from '@tanstack/react-query';
import { isApiError, unwrap } from '@tessera/client';
import {
  useClient,
  useCommitChanges,
  useCreateBranch,
  useGetDeployment,
  useListBranches,
  useListFiles,
  useMergeToDefaultBranch,
  useUpdateFiles,
} from '@tessera/client/react';
import { useCallback, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { idParam } from '../layout/deployment.ts';
import { Card, PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { NotFoundPage } from '../pages/not-found-page.tsx';
import { problemsOf } from '../ui/problems.ts';
import { ModelPreview } from './model-preview.tsx';
import { type LineProblem, YamlEditor } from './yaml-editor.tsx';
import './data.css';

const MAIN = 'main';

interface ModelError {
  fileName: string | null;
  line: number | null;
  message: string;
}

/**
 * `/data-sources/:deploymentId/model`: the deployment's model files on a branch. Edit YAML with the
 * server's validation shown inline as you type; save on a development branch whatever its state,
 * on main only a model without errors (the server refuses the rest); promote a branch to main
 * once it validates; try the main branch's model with a query.
 */
export function ModelPage() {
  const deploymentId = idParam(useParams().deploymentId);
  if (deploymentId === null) return <NotFoundPage />;
  return <ModelEditor deploymentId={deploymentId} />;
}

function ModelEditor({ deploymentId }: { deploymentId: number }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [search, setSearch] = useSearchParams();
  const branch = search.get('branch') || MAIN;
  const path = { deploymentId };
  const deployment = useGetDeployment({ params: { path } });
  const branches = useListBranches({ params: { path } });
  const files = useListFiles(
    { params: { path, query: { branchName: branch, withContent: true } } },
    { placeholderData: (previous) => previous },
  );
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<ModelError[] | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [newBranch, setNewBranch] = useState('dev');
  const [commitMessage, setCommitMessage] = useState('');
  const [version, setVersion] = useState(1);

  const list = (files.data?.items ?? []) as { fileName: string; content?: string }[];
  const fileName = search.get('file') ?? list[0]?.fileName ?? null;
  const stored = list.find((f) => f.fileName === fileName)?.content ?? '';
  const draftKey = `${branch}|${fileName}`;
  const text = drafts[draftKey] ?? stored;
  const dirty = drafts[draftKey] !== undefined && drafts[draftKey] !== stored;

  const go = (next: { branch?: string; file?: string | null }) => {
    const params = new URLSearchParams(search);
    if (next.branch !== undefined) {
      if (next.branch === MAIN) params.delete('branch');
      else params.set('branch', next.branch);
      params.delete('file');
      setErrors(null);
    }
    if (next.file) params.set('file', next.file);
    setStatus(null);
    setProblem(null);
    setSearch(params);
  };

  const validate = useCallback(
    async (content: string): Promise<LineProblem[]> => {
      if (!fileName) return [];
      const answer = unwrap(
        await client.POST('/build/api/v1/deployments/{deploymentId}/data-model/validate', {
          params: { path: { deploymentId } },
          body: { branchName: branch, files: [{ path: fileName, content }] },
        }),
      );
      setErrors(answer.errors);
      return answer.errors
        .filter((e) => e.fileName === fileName)
        .map((e) => ({ line: e.line, message: e.message }));
    },
    [client, deploymentId, branch, fileName],
  );

  const save = useUpdateFiles({
    onSuccess: (answer) => {
      setDrafts((d) => {
        const { [draftKey]: _, ...rest } = d;
        return rest;
      });
      setErrors(answer.errors ?? []);
      setStatus(
        answer.valid === false
          ? `Saved on ${branch}, with errors to fix before it can be promoted.`
          : `Saved on ${branch}.`,
      );
      setVersion((v) => v + 1);
      void queryClient.invalidateQueries();
    },
    onError: (error) => {
      const p = problemsOf(error);
      setProblem(`Not saved: ${Object.values(p.fields).join(' ') || p.other}`);
    },
  });
  const merge = useMergeToDefaultBranch({
    onSuccess: () => {
      setStatus(`Promoted ${branch} to main.`);
      setVersion((v) => v + 1);
      void queryClient.invalidateQueries();
    },
    onError: (error) => {
      const p = problemsOf(error);
      // A merge git cannot finish names the files both branches changed (issue 25 item 2).
      const conflict =
        isApiError(error) && (error.body as { code?: string } | null)?.code === 'merge_conflict';
      setProblem(
        conflict
          ? `Not promoted: main and ${branch} both changed ${Object.keys(p.fields).join(', ')}.`
          : `Not promoted: ${Object.values(p.fields).join(' ') || p.other}`,
      );
    },
  });
  const commit = useCommitChanges({
    onSuccess: (answer) => {
      setStatus(
        answer.committed
          ? `Committed ${answer.commitHash.slice(0, 7)} on ${branch}${answer.pushed ? ' and pushed it' : ''}.`
          : `Nothing to commit on ${branch}.`,
      );
      setCommitMessage('');
      void queryClient.invalidateQueries();
    },
    onError: (error) => {
      const p = problemsOf(error);
      setProblem(`Not committed: ${Object.values(p.fields).join(' ') || p.other}`);
    },
  });
  const create = useCreateBranch({
    onSuccess: (answer) => {
      void queryClient.invalidateQueries();
      go({ branch: answer.branchName ?? newBranch });
    },
    onError: (error) => {
      const p = problemsOf(error);
      setProblem(Object.values(p.fields).join(' ') || p.other);
    },
  });

  if (deployment.isError)
    return (
      <ErrorState
        title="The deployment could not be loaded"
        error={deployment.error}
        onRetry={() => void deployment.refetch()}
      />
    );
  const name = deployment.data?.name ?? `Deployment ${deploymentId}`;
  const branchNames = (branches.data?.items ?? []).map((b) => b.name);
  const head = branches.data?.items.find((b) => b.name === branch)?.lastHash ?? null;
  if (!branchNames.includes(branch)) branchNames.push(branch);
  const otherErrors = (errors ?? []).filter((e) => e.fileName !== fileName);
  const fileErrors = (errors ?? []).filter((e) => e.fileName === fileName);

  return (
    <div className="data-page">
      <PageHeader
        title="Data model"
        subtitle={name}
        breadcrumbs={[
          { label: 'Data', to: '/data-sources' },
          { label: name, to: `/data-sources/${deploymentId}` },
          { label: 'Model' },
        ]}
      />
      <div className="branch-bar">
        <label className="inline-field">
          <span>Branch</span>
          <select value={branch} onChange={(e) => go({ branch: e.target.value })}>
            {branchNames.map((b) => (
              <option key={b} value={b}>
                {b === MAIN ? 'main (live)' : b}
              </option>
            ))}
          </select>
        </label>
        <form
          className="new-branch"
          onSubmit={(e) => {
            e.preventDefault();
            setProblem(null);
            create.mutate({ params: { path }, body: { name: newBranch.trim(), from: MAIN, activate: true } });
          }}
        >
          <label className="inline-field">
            <span>New branch</span>
            <input value={newBranch} onChange={(e) => setNewBranch(e.target.value)} />
          </label>
          <button
            type="submit"
            className="button button-secondary"
            disabled={create.isPending || !newBranch.trim()}
          >
            Create branch
          </button>
        </form>
        {branch !== MAIN && (
          <form
            className="new-branch"
            onSubmit={(e) => {
              e.preventDefault();
              setProblem(null);
              commit.mutate({
                params: { path },
                body: { branchName: branch, message: commitMessage.trim() || null },
              });
            }}
          >
            <label className="inline-field">
              <span>Commit message</span>
              <input value={commitMessage} onChange={(e) => setCommitMessage(e.target.value)} />
            </label>
            <button
              type="submit"
              className="button button-secondary"
              disabled={commit.isPending || dirty}
              title={dirty ? 'Save your changes first' : undefined}
            >
              {commit.isPending ? 'Committing…' : 'Commit'}
            </button>
            {head && (
              <span className="branch-head" title={head}>
                at {head.slice(0, 7)}
              </span>
            )}
          </form>
        )}
        {branch !== MAIN && (
          <button
            type="button"
            className="button button-primary"
            disabled={merge.isPending || dirty}
            title={dirty ? 'Save your changes first' : undefined}
            onClick={() => {
              setProblem(null);
              merge.mutate({ params: { path }, body: { branchName: branch, message: `Promote ${branch}` } });
            }}
          >
            {merge.isPending ? 'Promoting…' : 'Promote to main'}
          </button>
        )}
      </div>
      <p className="model-status" role="status">
        {status}
      </p>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      {files.isPending ? (
        <LoadingState label="Loading the model files…" />
      ) : files.isError && !files.data ? (
        <ErrorState
          title="The model files could not be loaded"
          error={files.error}
          onRetry={() => void files.refetch()}
        />
      ) : list.length === 0 ? (
        <EmptyState title="No model files on this branch">
          Generate a starting model from the tables of the{' '}
          <a href={`/data-sources/${deploymentId}`}>data source</a>.
        </EmptyState>
      ) : (
        <div className="model-layout">
          <nav aria-label="Model files" className="file-list">
            <ul>
              {list.map((f) => (
                <li key={f.fileName}>
                  <button
                    type="button"
                    aria-current={f.fileName === fileName ? 'page' : undefined}
                    onClick={() => go({ file: f.fileName })}
                  >
                    {f.fileName}
                    {drafts[`${branch}|${f.fileName}`] !== undefined && ' •'}
                  </button>
                </li>
              ))}
            </ul>
          </nav>
          <Card
            title={fileName ?? ''}
            actions={
              <button
                type="button"
                className="button button-primary"
                disabled={save.isPending || !fileName || !dirty}
                onClick={() => {
                  setStatus(null);
                  setProblem(null);
                  if (fileName)
                    save.mutate({
                      params: { path },
                      body: { branchName: branch, files: [{ path: fileName, content: text }] },
                    });
                }}
              >
                {save.isPending ? 'Saving…' : dirty ? 'Save' : 'Saved'}
              </button>
            }
          >
            <YamlEditor
              key={draftKey}
              label={`Contents of ${fileName}`}
              value={text}
              onChange={(t) => setDrafts((d) => ({ ...d, [draftKey]: t }))}
              validate={validate}
            />
            <section
              aria-label="Model errors"
              className="model-errors"
              data-valid={errors === null ? undefined : errors.length === 0}
            >
              {errors === null ? (
                <p className="muted">Checking the model…</p>
              ) : errors.length === 0 ? (
                <p className="model-ok">No errors on {branch}.</p>
              ) : (
                <ul>
                  {[...fileErrors, ...otherErrors].map((e) => (
                    <li key={`${e.fileName}:${e.line}:${e.message}`}>
                      <span className="error-where">
                        {e.fileName ?? 'model'}
                        {e.line !== null ? `:${e.line}` : ''}
                      </span>{' '}
                      {e.message}
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </Card>
        </div>
      )}
      <ModelPreview deploymentId={deploymentId} version={version} />
    </div>
  );
}
