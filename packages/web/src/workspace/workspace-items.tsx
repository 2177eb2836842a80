import type { SuccessBody } from '@tessera/client';
import { useSharedWorkspaceObjects, useWorkspaceObjects } from '@tessera/client/react';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { FolderIcon, ReportIcon, WorkbookIcon } from '../layout/icons.tsx';
import { DateText } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';

export type WorkspaceItem = SuccessBody<
  '/api/v1/deployments/{deploymentId}/workspace',
  'get'
>['items'][number];
type PageBody = SuccessBody<'/api/v1/deployments/{deploymentId}/workspace', 'get'>;

/** Items per request (spec 2.4's `first`); further pages are asked for with `after`. */
export const pageSize = 50;

const typeLabels: Record<WorkspaceItem['type'], string> = {
  FOLDER: 'Folder',
  WORKBOOK: 'Workbook',
  REPORT: 'Report',
};

/** Where an item of the workspace opens in the app. */
export function itemPath(item: Pick<WorkspaceItem, 'type' | 'id' | 'deploymentId'>): string {
  const base = `/workspace/${item.deploymentId}`;
  if (item.type === 'FOLDER') return `${base}/folders/${item.id}`;
  if (item.type === 'WORKBOOK') return `${base}/workbooks/${item.id}`;
  return `${base}/reports/${item.id}`;
}

export function ItemIcon({ type }: { type: WorkspaceItem['type'] }) {
  if (type === 'FOLDER') return <FolderIcon className="item-icon item-icon-folder" />;
  if (type === 'WORKBOOK') return <WorkbookIcon className="item-icon item-icon-workbook" />;
  return <ReportIcon className="item-icon item-icon-report" />;
}

function ownerName(item: WorkspaceItem): string | null {
  if (!item.user) return null;
  return item.user.firstName || item.user.email;
}

export interface WorkspaceListProps {
  deploymentId: number;
  /** null: the workspace root. */
  folderId: number | null;
  /** Names matching this, in every folder. */
  search?: string;
  /** The shared workspace: what others own and share with the caller. */
  shared?: boolean;
  /** What to say when the level is empty. */
  emptyTitle?: string;
  emptyMessage?: string;
}

/**
 * One level of the workspace (or a search across it) as the API lists it for the caller: only
 * what they may view, folders first, a page at a time (`first`, then `after` the last cursor).
 */
export function WorkspaceList(props: WorkspaceListProps) {
  const { deploymentId, folderId, search, shared } = props;
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [ends, setEnds] = useState<Record<number, PageBody['pageInfo']>>({});
  const [counts, setCounts] = useState<Record<number, number>>({});
  // Another level or search starts again from the first page.
  const identity = `${deploymentId}/${folderId}/${search ?? ''}/${shared ? 1 : 0}`;
  const [shownIdentity, setShownIdentity] = useState(identity);
  if (shownIdentity !== identity) {
    setShownIdentity(identity);
    setCursors([undefined]);
    setEnds({});
    setCounts({});
  }

  const last = cursors.length - 1;
  const lastInfo = ends[last];
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const allLoaded = Object.keys(counts).length === cursors.length;

  return (
    <div className="item-list">
      <table className="items" hidden={allLoaded && total === 0}>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col" className="col-type">
              Type
            </th>
            <th scope="col" className="col-owner">
              Owner
            </th>
            <th scope="col" className="col-date">
              Updated
            </th>
          </tr>
        </thead>
        {cursors.map((after, index) => (
          <ItemsPage
            key={`${identity}:${after ?? ''}`}
            {...props}
            after={after}
            onLoaded={(page) => {
              setEnds((e) => (e[index] === page.pageInfo ? e : { ...e, [index]: page.pageInfo }));
              setCounts((c) => (c[index] === page.items.length ? c : { ...c, [index]: page.items.length }));
            }}
          />
        ))}
      </table>
      {allLoaded && total === 0 && (
        <EmptyState title={props.emptyTitle ?? (search ? 'Nothing matches' : 'This folder is empty')}>
          {props.emptyMessage ??
            (search
              ? `No folder, workbook or report you can view is named like “${search}”.`
              : 'There is nothing here you can view yet.')}
        </EmptyState>
      )}
      {lastInfo?.hasNextPage && lastInfo.endCursor && (
        <div className="load-more">
          <button
            type="button"
            className="button button-secondary"
            onClick={() => setCursors((c) => [...c, lastInfo.endCursor ?? undefined])}
          >
            Show more
          </button>
        </div>
      )}
    </div>
  );
}

interface ItemsPageProps extends WorkspaceListProps {
  after: string | undefined;
  onLoaded: (page: PageBody) => void;
}

function ItemsPage(props: ItemsPageProps) {
  return props.shared ? <SharedItemsPage {...props} /> : <OwnItemsPage {...props} />;
}

function queryOf({ deploymentId, folderId, search, after }: ItemsPageProps) {
  return {
    params: {
      path: { deploymentId },
      query: {
        first: pageSize,
        ...(search ? { search } : { folderId: folderId ?? 0 }),
        ...(after ? { after } : {}),
      },
    },
  };
}

function OwnItemsPage(props: ItemsPageProps) {
  return <PageRows props={props} result={useWorkspaceObjects(queryOf(props))} />;
}

function SharedItemsPage(props: ItemsPageProps) {
  return <PageRows props={props} result={useSharedWorkspaceObjects(queryOf(props))} />;
}

function PageRows({
  props,
  result,
}: {
  props: ItemsPageProps;
  result: { data?: PageBody; isPending: boolean; isError: boolean; error: unknown; refetch: () => unknown };
}) {
  const { data } = result;
  const { onLoaded } = props;
  useEffect(() => {
    if (data) onLoaded(data);
  }, [data, onLoaded]);
  if (result.isPending || result.isError) {
    return (
      <tbody>
        <tr>
          <td colSpan={4}>
            {result.isPending ? (
              <LoadingState />
            ) : (
              <ErrorState
                title="The workspace could not be loaded"
                error={result.error}
                onRetry={() => void result.refetch()}
              />
            )}
          </td>
        </tr>
      </tbody>
    );
  }
  return (
    <tbody>
      {data?.items.map((item) => (
        <tr key={`${item.type}-${item.id}`}>
          <td>
            <Link to={itemPath(item)} className="item-name">
              <ItemIcon type={item.type} />
              <span>{item.name}</span>
            </Link>
            {props.search && item.folderPath.length > 0 && (
              <span className="item-path">in {item.folderPath.map((f) => f.name).join(' / ')}</span>
            )}
          </td>
          <td className="col-type">{typeLabels[item.type]}</td>
          <td className="col-owner">{ownerName(item) ?? <span className="muted">—</span>}</td>
          <td className="col-date">
            <DateText value={item.updatedAt} />
          </td>
        </tr>
      ))}
    </tbody>
  );
}
