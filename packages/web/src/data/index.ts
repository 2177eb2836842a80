/** The Data area's pages (issue 21 item 4), loaded as one chunk by the router (app.tsx). */
export { DataSourcePage } from './data-source-page.tsx';
export { DataSourcesPage } from './data-sources-page.tsx';
export { ModelPage } from './model-page.tsx';
export { NewDataSourcePage } from './new-data-source-page.tsx';
