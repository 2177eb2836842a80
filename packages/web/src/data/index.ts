/** The Data area's pages (issue 21 item 4), loaded as one chunk by the router (app.tsx); the model editor is its own. */
export { DataSourcePage } from './data-source-page.tsx';
export { DataSourcesPage } from './data-sources-page.tsx';
export { NewDataSourcePage } from './new-data-source-page.tsx';
