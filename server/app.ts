// Builds the Express app: ingest, API, dashboard (static files of dist/web) and the one
// error middleware.
import { existsSync } from 'node:fs';
import express, { type Express } from 'express';
import { repoPath } from '../schemas/paths.js';
import { ApiError, errorMiddleware } from './errors.js';
import { authMiddleware } from './auth/auth-middleware.js';
import { keysRouter } from './auth/keys-router.js';
import { eventsRouter } from './events/events-router.js';
import { healthRouter } from './health/health-router.js';
import { otlpRouter } from './otlp/otlp-router.js';
import { forcedProject } from './auth/auth-context.js';
import { ingestStatusRouter } from './ingest-status/ingest-status-router.js';
import { IngestActivity } from './ingest-status/ingest-activity.js';
import { metricsRouter } from './metrics/metrics-router.js';
import { analyticsRouter } from './metrics/analytics-router.js';
import { compareRouter } from './compare/compare-router.js';
import { loopGroupsRouter } from './loops/loop-groups-router.js';
import { projectsRouter } from './projects/projects-router.js';
import { runsRouter } from './runs/runs-router.js';
import { rlRouter } from './rl/rl-router.js';
import type { Services } from './services.js';
import { sqlRouter } from './sql/sql-router.js';
import { savedQueriesRouter } from './sql/saved-queries-router.js';
import { alertsRouter } from './alerts/alerts-router.js';
import { dashboardRouter } from './dashboard/dashboard-router.js';

export function createApp(s: Services): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.use(healthRouter(s.storage, s.writer, s.kafka));
  // Every route below needs a key with the right scope once keys are configured (server/auth).
  app.use(authMiddleware(s.config, s.keys));
  app.use(keysRouter(s.keys));
  // With Kafka, POST /v1/events produces to the topic; the consumer group stores the events.
  const activity = new IngestActivity();
  app.use(eventsRouter(s.kafka?.producer ?? s.ingestor, { maxBodyBytes: s.config.ingest.maxBodyBytes, waitMs: s.config.ingest.waitMs, ack: s.config.ingest.ack, activity }));
  app.use(otlpRouter(s.storage, s.kafka?.producer ?? s.ingestor, { maxBodyBytes: s.config.ingest.maxBodyBytes, waitMs: s.config.ingest.waitMs, defaultProject: s.config.defaultProject, projectOf: forcedProject, log: (m, e) => s.log.warn(m, e) }));
  app.use(runsRouter(s.storage));
  app.use(metricsRouter(s.storage));
  app.use(analyticsRouter(s.storage, s.config));
  app.use(compareRouter(s.storage));
  app.use(rlRouter(s.storage, s.config.defaultProject));
  app.use(loopGroupsRouter(s.storage));
  app.use(projectsRouter(s.storage));
  app.use(ingestStatusRouter(s, activity));
  app.use(sqlRouter(s.sqlConsole));
  app.use(alertsRouter(s.alerts));
  app.use(savedQueriesRouter(s.storage, s.config.defaultProject));
  app.use(['/api', '/v1'], (req, _res, next) => next(new ApiError(404, 'not_found', `no endpoint ${req.method} ${req.originalUrl}`)));
  const web = repoPath('dist', 'web');
  if (existsSync(web)) {
    app.use(dashboardRouter(web));
  } else {
    app.get('/', (_req, res) => res.type('text').send('Trajscope API is running; the dashboard is not built (npm run build).'));
  }
  app.use(errorMiddleware((msg, err) => s.log.error(msg, err)));
  return app;
}
