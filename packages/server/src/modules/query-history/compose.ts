import { type ComposedModule, routesWith } from '../module.ts';
import { queryHistoryRoutes } from './routes.ts';
import { QueryHistoryService } from './service.ts';

/** The SQL editor's query history: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeQueryHistory(
  ...deps: ConstructorParameters<typeof QueryHistoryService>
): ComposedModule<{ queryHistory: QueryHistoryService }> {
  const queryHistory = new QueryHistoryService(...deps);
  return { services: { queryHistory }, routes: routesWith(queryHistoryRoutes, { queryHistory }) };
}
