// Routes of the dashboard. New pages (failures, loops, costs, compare, SQL) plug in here.
import { createBrowserRouter } from 'react-router-dom';
import { Layout } from './components/layout.js';
import { IngestPage } from './pages/ingest-page.js';
import { NotFoundPage } from './pages/not-found-page.js';
import { OverviewPage } from './pages/overview-page.js';
import { RunPage } from './pages/run-page.js';
import { RunsPage } from './pages/runs-page.js';

export const router = createBrowserRouter([
  {
    path: '/',
    element: <Layout />,
    children: [
      { index: true, element: <OverviewPage /> },
      { path: 'runs', element: <RunsPage /> },
      { path: 'runs/:runId', element: <RunPage /> },
      // Loaded when first opened: the SQL editor (CodeMirror) stays out of the initial bundle.
      { path: 'console', lazy: () => import('./pages/console-page.js').then((m) => ({ Component: m.ConsolePage })) },
      { path: 'ingest', element: <IngestPage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);
