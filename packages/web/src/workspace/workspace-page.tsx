import { useGetFolderAncestors } from '@tessera/client/react';
import { type FormEvent, useState } from 'react';
import { NavLink, useParams, useSearchParams } from 'react-router';
import { idParam } from '../layout/deployment.ts';
import { SearchIcon } from '../layout/icons.tsx';
import { type Crumb, PageHeader } from '../layout/page.tsx';
import { ErrorState } from '../layout/states.tsx';
import { useSignedInUser } from '../session/session.tsx';
import { ShareButton } from '../sharing/share-button.tsx';
import { WorkspaceList } from './workspace-items.tsx';

function WorkspaceTabs({ deploymentId }: { deploymentId: number }) {
  return (
    <nav aria-label="Workspace views" className="tabs">
      <NavLink to={`/workspace/${deploymentId}`} end>
        All items
      </NavLink>
      <NavLink to={`/workspace/${deploymentId}/shared`}>Shared with me</NavLink>
    </nav>
  );
}

function SearchBox({ initial, onSearch }: { initial: string; onSearch: (value: string) => void }) {
  const [value, setValue] = useState(initial);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(value.trim());
  };
  return (
    <search className="search">
      <form onSubmit={submit}>
        <label htmlFor="workspace-search" className="visually-hidden">
          Search the workspace
        </label>
        <SearchIcon className="search-icon" />
        <input
          id="workspace-search"
          type="search"
          placeholder="Search by name"
          value={value}
          maxLength={255}
          onChange={(event) => {
            setValue(event.target.value);
            if (event.target.value === '') onSearch('');
          }}
        />
      </form>
    </search>
  );
}

/** The folder chain above a folder, as breadcrumbs (GET .../folders/{id}/ancestors). */
function useFolderCrumbs(deploymentId: number, folderId: number | null) {
  const ancestors = useGetFolderAncestors(
    { params: { path: { deploymentId, folderId: folderId ?? 1 } } },
    { enabled: folderId !== null },
  );
  const crumbs: Crumb[] = [{ label: 'Workspace', to: `/workspace/${deploymentId}` }];
  for (const folder of ancestors.data ?? []) {
    crumbs.push({
      label: folder.name,
      to: folder.id === folderId ? undefined : `/workspace/${deploymentId}/folders/${folder.id}`,
    });
  }
  const current = ancestors.data?.find((f) => f.id === folderId);
  return { crumbs, current, ancestors };
}

/** `/workspace/:deploymentId` and `/workspace/:deploymentId/folders/:folderId`: one level of the tree. */
export function WorkspacePage() {
  const params = useParams();
  const deploymentId = idParam(params.deploymentId);
  const folderId = params.folderId === undefined ? null : idParam(params.folderId);
  const [searchParams, setSearchParams] = useSearchParams();
  const search = searchParams.get('q') ?? '';
  if (deploymentId === null || (params.folderId !== undefined && folderId === null)) {
    return <ErrorState title="Not found" message="This address does not name a deployment or folder." />;
  }
  return (
    <FolderView
      key={`${deploymentId}/${folderId}`}
      deploymentId={deploymentId}
      folderId={folderId}
      search={search}
      onSearch={(q) => setSearchParams(q ? { q } : {}, { replace: true })}
    />
  );
}

function FolderView({
  deploymentId,
  folderId,
  search,
  onSearch,
}: {
  deploymentId: number;
  folderId: number | null;
  search: string;
  onSearch: (q: string) => void;
}) {
  const { crumbs, current, ancestors } = useFolderCrumbs(deploymentId, folderId);
  const developer = useSignedInUser().role !== 'viewer';
  if (folderId !== null && ancestors.isError) {
    return (
      <>
        <PageHeader title="Folder" breadcrumbs={crumbs.slice(0, 1)} />
        <ErrorState
          title="This folder could not be opened"
          error={ancestors.error}
          onRetry={() => void ancestors.refetch()}
        />
      </>
    );
  }
  const title = folderId === null ? 'Workspace' : (current?.name ?? 'Folder');
  return (
    <>
      <PageHeader
        title={title}
        subtitle={
          folderId === null ? 'Folders, workbooks and reports you can view in this deployment.' : undefined
        }
        breadcrumbs={folderId === null ? undefined : crumbs}
        actions={
          <>
            {folderId !== null && current && developer && (
              <ShareButton
                deploymentId={deploymentId}
                item={{
                  type: 'FOLDER',
                  id: folderId,
                  name: current.name,
                  folderPath: (ancestors.data ?? []).filter((f) => f.id !== folderId),
                }}
              />
            )}
            <SearchBox initial={search} onSearch={onSearch} />
          </>
        }
      />
      {folderId === null && <WorkspaceTabs deploymentId={deploymentId} />}
      {search && (
        <p className="search-summary">
          Results for “{search}” in the whole workspace.{' '}
          <button type="button" className="link-button" onClick={() => onSearch('')}>
            Clear search
          </button>
        </p>
      )}
      <WorkspaceList
        deploymentId={deploymentId}
        folderId={folderId}
        search={search || undefined}
        emptyTitle={folderId === null && !search ? 'Your workspace is empty' : undefined}
      />
    </>
  );
}

/** `/workspace/:deploymentId/shared`: what others own and share with the signed-in user. */
export function SharedWorkspacePage() {
  const deploymentId = idParam(useParams().deploymentId);
  if (deploymentId === null) {
    return <ErrorState title="Not found" message="This address does not name a deployment." />;
  }
  return (
    <>
      <PageHeader title="Workspace" subtitle="Folders, workbooks and reports others have shared with you." />
      <WorkspaceTabs deploymentId={deploymentId} />
      <WorkspaceList
        deploymentId={deploymentId}
        folderId={null}
        shared
        emptyTitle="Nothing is shared with you yet"
        emptyMessage="When someone gives you access to their folders, workbooks or reports, they appear here."
      />
    </>
  );
}
