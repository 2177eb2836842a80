import { type ComposedModule, routesWith } from '../module.ts';
import { contentRoutes } from './routes.ts';
import { ContentService, type ContentServiceDeps } from './service.ts';

/** Content kept as code (issue 25 item 6): the service and its routes. */
export function composeContent(deps: ContentServiceDeps): ComposedModule<{ content: ContentService }> {
  const content = new ContentService(deps);
  return { services: { content }, routes: routesWith(contentRoutes, { content }) };
}
