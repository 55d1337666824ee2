// Routes of the dashboard. New pages plug in here. Pages other than the first views load on
// demand (React.lazy), which keeps the initial JavaScript small; each import names its export.
import { lazy, Suspense, type ComponentType } from 'react';
import { createBrowserRouter } from 'react-router-dom';
import { Layout } from './components/layout.js';
import { Loading } from './components/states.js';
import { NotFoundPage } from './pages/not-found-page.js';
import { OverviewPage } from './pages/overview-page.js';
import { RunPage } from './pages/run-page.js';
import { RunsPage } from './pages/runs-page.js';

/** A page module loaded on first visit, shown with the shared loading state meanwhile. */
function lazyPage<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  const Page = lazy(async (): Promise<{ default: ComponentType }> => ({ default: (await load())[name] }));
  return (
    <Suspense fallback={<Loading label="Loading page…" />}>
      <Page />
    </Suspense>
  );
}

export const router = createBrowserRouter([
  {
    path: '/',
    element: <Layout />,
    children: [
      { index: true, element: <OverviewPage /> },
      { path: 'runs', element: <RunsPage /> },
      { path: 'runs/:runId', element: <RunPage /> },
      { path: 'runs/:runId/graph', element: lazyPage(() => import('./pages/run-graph-page.js'), 'RunGraphPage') },
      { path: 'search', element: lazyPage(() => import('./pages/search-page.js'), 'SearchPage') },
      { path: 'errors', element: lazyPage(() => import('./pages/errors-page.js'), 'ErrorsPage') },
      { path: 'failures', element: lazyPage(() => import('./pages/failures-page.js'), 'FailuresPage') },
      { path: 'loops', element: lazyPage(() => import('./pages/loops-page.js'), 'LoopsPage') },
      { path: 'paths', element: lazyPage(() => import('./pages/paths-page.js'), 'PathsPage') },
      { path: 'costs', element: lazyPage(() => import('./pages/costs-page.js'), 'CostsPage') },
      { path: 'compare', element: lazyPage(() => import('./pages/compare-page.js'), 'ComparePage') },
      { path: 'rl/training', element: lazyPage(() => import('./pages/rl-training-page.js'), 'RlTrainingPage') },
      { path: 'rl/tasks', element: lazyPage(() => import('./pages/rl-tasks-page.js'), 'RlTasksPage') },
      { path: 'console', element: lazyPage(() => import('./pages/console-page.js'), 'ConsolePage') },
      { path: 'ingest', element: lazyPage(() => import('./pages/ingest-page.js'), 'IngestPage') },
      { path: 'alerts', element: lazyPage(() => import('./pages/alerts-page.js'), 'AlertsPage') },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
  { path: '/sign-in', element: lazyPage(() => import('./pages/sign-in-page.js'), 'SignInPage') },
]);
