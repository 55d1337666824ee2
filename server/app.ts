// Builds the Express app: ingest, API, dashboard (static files of dist/web) and the one
// error middleware.
import { existsSync } from 'node:fs';
import express, { type Express } from 'express';
import { repoPath } from '../schemas/paths.js';
import { ApiError } from '../schemas/api-error.js';
import { errorMiddleware } from './errors.js';
import { authEnforced, authMiddleware } from './auth/auth-middleware.js';
import { openModeGuard } from './auth/open-mode-guard.js';
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
import { changesRouter } from './changes/changes-router.js';
import { errorsRouter } from './errors/errors-router.js';
import { graphRouter } from './graph/graph-router.js';
import { hackingRouter } from './hacking/hacking-router.js';
import { searchRouter } from './search/search-router.js';
import { loopGroupsRouter } from './loops/loop-groups-router.js';
import { projectsRouter } from './projects/projects-router.js';
import { runsRouter } from './runs/runs-router.js';
import { rlRouter } from './rl/rl-router.js';
import type { AppServices } from './app-services.js';
import { sqlRouter } from './sql/sql-router.js';
import { savedQueriesRouter } from './sql/saved-queries-router.js';
import { alertsRouter } from './alerts/alerts-router.js';
import { dashboardRouter } from './dashboard/dashboard-router.js';
import { securityHeaders } from './security-headers.js';
import { requestLog } from './request-log.js';
import { openApiRouter } from './openapi/openapi-router.js';
import { httpMetrics } from './prometheus/http-metrics.js';
import { prometheusRouter } from './prometheus/prometheus-router.js';
import { countingActivity, countingSink } from './prometheus/ingest-counts.js';

export function createApp(s: AppServices): Express {
  const app = express();
  // First: every answer, refusals included, gets its request id and an access-log line, and is timed.
  app.use(requestLog(s.log));
  app.use(httpMetrics(s.metrics));
  app.use(securityHeaders());
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  // Without keys: loopback host names only, no state change from other origins; always: no
  // body of the types a page can send cross-site without a preflight (server/auth/open-mode-guard.ts).
  app.use(openModeGuard(() => !authEnforced(s.config, s.keys), s.config.alerts.publicUrl ? [s.config.alerts.publicUrl] : []));
  app.use(healthRouter(s.storage, s.writer, s.kafka, { config: s.config, keys: s.keys }));
  // Every route below needs a key with the right scope once keys are configured (server/auth).
  app.use(authMiddleware(s.config, s.keys));
  app.use(prometheusRouter(s.metrics));
  app.use(keysRouter(s.keys));
  app.use(openApiRouter());
  // With Kafka, POST /v1/events produces to the topic; the consumer group stores the events.
  const activity = new IngestActivity();
  // Events storage refused after their sender was answered (ack=buffered) join the recent rejections.
  s.ingestor.onLateRejections((rejected) => activity.record(0, rejected, 'storage'));
  app.use(eventsRouter(s.kafka?.producer ?? s.ingestor, { maxBodyBytes: s.config.ingest.maxBodyBytes, waitMs: s.config.ingest.waitMs, ack: s.config.ingest.ack, activity: countingActivity(activity, s.metrics) }));
  app.use(otlpRouter(s.storage, countingSink(s.kafka?.producer ?? s.ingestor, s.metrics, 'otlp'), { maxBodyBytes: s.config.ingest.maxBodyBytes, waitMs: s.config.ingest.waitMs, defaultProject: s.config.defaultProject, projectOf: forcedProject, log: (m, e) => s.log.warn(m, e) }));
  app.use(runsRouter(s.storage));
  app.use(metricsRouter(s.storage));
  app.use(analyticsRouter(s.storage, s.config));
  app.use(compareRouter(s.storage));
  app.use(changesRouter(s.storage));
  app.use(searchRouter(s.storage));
  app.use(errorsRouter(s.storage));
  app.use(graphRouter(s.storage));
  app.use(hackingRouter(s.storage));
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
  app.use(
    errorMiddleware(
      (msg, err, requestId) => s.log.pino.error({ err, request_id: requestId }, msg),
      (msg, requestId) => s.log.pino.warn({ request_id: requestId }, msg),
    ),
  );
  return app;
}
