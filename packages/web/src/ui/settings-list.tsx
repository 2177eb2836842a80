import type { ReactNode } from 'react';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';

/** What a list needs of its query (TanStack Query's result): loading, failed, or its items. */
export interface ListQuery {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch: () => unknown;
}

/**
 * A Settings list (settings-pages.css `.settings-list`): loading, failure with a retry, an empty
 * state, or one row per item with its name, a line of details and its actions (Edit, Delete…),
 * each button naming its item for screen readers. While a new answer loads the old rows stay.
 */
export function SettingsList<T>(props: {
  /** The list's accessible name, e.g. `Embed tenants`. */
  label: string;
  query: ListQuery;
  items: readonly T[] | undefined;
  keyOf: (item: T) => string | number;
  /** The item's name as plain text: the row's title and what its buttons say they act on. */
  nameOf: (item: T) => string;
  details?: (item: T) => ReactNode;
  /** The empty state's title, e.g. `No embed tenants yet.`, and what to do about it. */
  empty: string;
  emptyHint?: ReactNode;
  onEdit?: (item: T) => void;
  onDelete?: (item: T) => void;
  /** More buttons before Edit and Delete (e.g. `Groups`). */
  actions?: (item: T) => ReactNode;
}) {
  const { query, items } = props;
  if (items === undefined) {
    if (query.isError) return <ErrorState error={query.error} onRetry={() => query.refetch()} />;
    return <LoadingState />;
  }
  if (items.length === 0) return <EmptyState title={props.empty}>{props.emptyHint}</EmptyState>;
  return (
    <ul className="settings-list" aria-label={props.label}>
      {items.map((item) => {
        const name = props.nameOf(item);
        return (
          <li key={props.keyOf(item)}>
            <div className="settings-list-text">
              <span className="settings-list-name">{name}</span>
              {props.details && <span className="muted">{props.details(item)}</span>}
            </div>
            <div className="settings-list-actions">
              {props.actions?.(item)}
              {props.onEdit && (
                <button
                  type="button"
                  className="button button-secondary"
                  onClick={() => props.onEdit?.(item)}
                >
                  Edit<span className="visually-hidden"> {name}</span>
                </button>
              )}
              {props.onDelete && (
                <button
                  type="button"
                  className="button button-secondary"
                  onClick={() => props.onDelete?.(item)}
                >
                  Delete<span className="visually-hidden"> {name}</span>
                </button>
              )}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
