import { useIsFetching, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { widgetDataPath } from './api-types.ts';

/**
 * `value` once no tile of the page is fetching its rows (null before the first time), for work
 * that should wait for the tiles: the filter controls' value lists (controls.tsx). A filter
 * change asks each tile and the lists at once; over HTTP/1.1 the browser opens six connections
 * to the server, so a seventh request waited for a tile to finish, and the lists' queries (one per
 * member) took the engine from the tiles' (issue 23: a dashboard draws within 3x of its queries
 * run directly on the engine). The lists narrowed by the new filters matter only when a control
 * is opened next, and the ones on the page stay meanwhile.
 */
export function useAfterTiles<T>(value: T): T | null {
  const queryClient = useQueryClient();
  const fetching = useIsFetching({ queryKey: [widgetDataPath] });
  const [settled, setSettled] = useState<T | null>(null);
  useEffect(() => {
    if (fetching > 0) return;
    // None fetching when this rendered; read again a task later: the tiles start fetching for a
    // new state in the same commit as this effect, after the count this render saw.
    const timer = setTimeout(() => {
      if (queryClient.isFetching({ queryKey: [widgetDataPath] }) === 0) setSettled(() => value);
    }, 0);
    return () => clearTimeout(timer);
  }, [value, fetching, queryClient]);
  return settled;
}
