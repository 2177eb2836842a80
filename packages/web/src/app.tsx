import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { isApiError } from '@tessera/client';
import { lazy, Suspense, useState } from 'react';
import { createBrowserRouter, Outlet, RouterProvider } from 'react-router';
import { AppShell } from './layout/app-shell.tsx';
import { FullPageLoading, LoadingState } from './layout/states.tsx';
import { DashboardsPage } from './pages/dashboards-page.tsx';
import { ChooseDeployment } from './pages/home-page.tsx';
import { NotFoundPage } from './pages/not-found-page.tsx';
import { SignInPage } from './pages/sign-in-page.tsx';
import { RequireSession } from './session/require-session.tsx';
import { SessionProvider } from './session/session.tsx';
import { SettingsLayout, settingsRoutes } from './settings/settings-layout.tsx';
import { WorkbookPage } from './workspace/workbook-page.tsx';
import { SharedWorkspacePage, WorkspacePage } from './workspace/workspace-page.tsx';

/**
 * The Data area (data sources, tables) is its own chunk, and the model editor another: CodeMirror
 * loads with the editor only, so that the data-source pages stay under 300 KB (bench/web).
 */
const dataPage = (name: 'DataSourcesPage' | 'NewDataSourcePage' | 'DataSourcePage') => () =>
  import('./data/index.ts').then((m) => ({ Component: m[name] }));
const modelPage = () => import('./data/model-page.tsx').then((m) => ({ Component: m.ModelPage }));

/** The embed page is its own bundle chunk: a framed dashboard loads none of the signed-in app. */
const EmbedPage = lazy(() => import('./embed/embed-page.tsx').then((m) => ({ default: m.EmbedPage })));
/** A report draws its chart with Vega: loaded when a report is opened, not with the sign-in page. */
const ReportPage = lazy(() => import('./reports/report-page.tsx').then((m) => ({ default: m.ReportPage })));
/** Dashboards load their charting code (Vega) only when one is opened: sign-in stays light. */
const DashboardPage = lazy(() =>
  import('./dashboard/dashboard-page.tsx').then((m) => ({ default: m.DashboardPage })),
);

/** The dashboard editor and a version's view load the grid and Markdown only when opened (issue 23). */
const DashboardEditorPage = lazy(() =>
  import('./dashboard/edit/editor-page.tsx').then((m) => ({ default: m.DashboardEditorPage })),
);
const DashboardVersionPage = lazy(() =>
  import('./dashboard/edit/version-page.tsx').then((m) => ({ default: m.DashboardVersionPage })),
);

/** Explore loads its charting code (Vega) and query builder only when opened, like a dashboard. */
const ExplorePage = lazy(() =>
  import('./explore/explore-page.tsx').then((m) => ({ default: m.ExplorePage })),
);

/** Reads are retried once on a network failure or a 5xx; a 4xx is an answer, not a hiccup. */
function retryRead(failures: number, error: unknown): boolean {
  if (isApiError(error) && error.status < 500) return false;
  return failures < 1;
}

/** The signed-in app and its sign-in page share one query cache and one session. */
function SessionRoot() {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: { retry: retryRead, staleTime: 30_000, refetchOnWindowFocus: false },
          mutations: { retry: false },
        },
      }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <Outlet />
      </SessionProvider>
    </QueryClientProvider>
  );
}

function SignedIn() {
  return (
    <RequireSession>
      <AppShell />
    </RequireSession>
  );
}

/**
 * The routes (DESIGN.md "Web app and sessions"). The server answers every one of these paths with
 * index.html (packages/server/src/http/web-app.ts); the embed page lives outside the session.
 */
const router = createBrowserRouter([
  {
    path: '/embed/*',
    element: (
      <Suspense fallback={<FullPageLoading />}>
        <EmbedPage />
      </Suspense>
    ),
  },
  {
    element: <SessionRoot />,
    children: [
      { path: '/sign-in', element: <SignInPage /> },
      {
        element: <SignedIn />,
        children: [
          { path: '/', element: <ChooseDeployment section="workspace" /> },
          { path: '/workspace', element: <ChooseDeployment section="workspace" /> },
          { path: '/workspace/:deploymentId', element: <WorkspacePage /> },
          { path: '/workspace/:deploymentId/shared', element: <SharedWorkspacePage /> },
          { path: '/workspace/:deploymentId/folders/:folderId', element: <WorkspacePage /> },
          { path: '/workspace/:deploymentId/workbooks/:workbookId', element: <WorkbookPage /> },
          {
            path: '/workspace/:deploymentId/workbooks/:workbookId/edit',
            element: (
              <Suspense fallback={<LoadingState label="Loading the editor…" />}>
                <DashboardEditorPage />
              </Suspense>
            ),
          },
          {
            path: '/workspace/:deploymentId/workbooks/:workbookId/versions/:versionNumber',
            element: (
              <Suspense fallback={<LoadingState label="Loading the version…" />}>
                <DashboardVersionPage />
              </Suspense>
            ),
          },
          {
            path: '/workspace/:deploymentId/reports/:reportId',
            element: (
              <Suspense fallback={<LoadingState label="Loading the report…" />}>
                <ReportPage />
              </Suspense>
            ),
          },
          { path: '/dashboards', element: <ChooseDeployment section="dashboards" /> },
          { path: '/dashboards/:deploymentId', element: <DashboardsPage /> },
          {
            path: '/dashboards/:deploymentId/:publicId',
            element: (
              <Suspense fallback={<LoadingState label="Loading the dashboard…" />}>
                <DashboardPage />
              </Suspense>
            ),
          },
          {
            path: '/dashboards/:deploymentId/:publicId/print',
            element: (
              <Suspense fallback={<LoadingState label="Loading the dashboard…" />}>
                <DashboardPage print />
              </Suspense>
            ),
          },
          { path: '/explore', element: <ChooseDeployment section="explore" /> },
          {
            path: '/explore/:deploymentId',
            element: (
              <Suspense fallback={<LoadingState label="Loading Explore…" />}>
                <ExplorePage />
              </Suspense>
            ),
          },
          { path: '/chat', element: <ChooseDeployment section="chat" /> },
          { path: '/chat/:deploymentId', lazy: () => import('./chat/chat-page.tsx') },
          { path: '/sql', element: <ChooseDeployment section="sql" /> },
          // The SQL editor loads CodeMirror only when it is opened: sign-in stays light.
          { path: '/sql/:deploymentId', lazy: () => import('./sql/sql-page.tsx') },
          { path: '/data-sources', lazy: dataPage('DataSourcesPage') },
          { path: '/data-sources/new', lazy: dataPage('NewDataSourcePage') },
          { path: '/data-sources/:deploymentId', lazy: dataPage('DataSourcePage') },
          { path: '/data-sources/:deploymentId/model', lazy: modelPage },
          { path: '/settings', element: <SettingsLayout />, children: settingsRoutes() },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
]);

/** The application: the router and its pages. */
export function App() {
  return <RouterProvider router={router} />;
}
