// POST /v1/events: a JSON event, a JSON array or NDJSON (gzip accepted). Answers
// {accepted, rejected: [{index, error}]}: 200 all accepted, 207 some rejected, 400 none.
import express, { Router } from 'express';
import type { EventIngestor } from '../../ingest/event-ingestor.js';
import { BodyParseError, parseEventsBody } from '../../ingest/parse-body.js';
import { ApiError } from '../errors.js';
import type { IngestActivity } from '../ingest-status/ingest-activity.js';
import { forcedProject } from '../auth/auth-context.js';

export interface EventsRouterOptions {
  maxBodyBytes: number;
  /** How long to wait for the rows to be stored before answering 503. */
  waitMs: number;
  /** Default acknowledgement: after the rows are stored, or once they are buffered. */
  ack: 'stored' | 'buffered';
  /** Counts accepted events and keeps recent rejections for the ingest panel. */
  activity?: Pick<IngestActivity, 'record'>;
}

export function eventsRouter(ingestor: Pick<EventIngestor, 'ingest'>, o: EventsRouterOptions): Router {
  const router = Router();
  router.post(
    '/v1/events',
    express.text({ type: () => true, limit: o.maxBodyBytes, inflate: true }),
    async (req, res) => {
      const body = typeof req.body === 'string' ? req.body : '';
      const ndjson = /ndjson|jsonl|json-seq/i.test(req.get('content-type') ?? '');
      let items;
      try {
        items = parseEventsBody(body, ndjson);
      } catch (err) {
        if (err instanceof BodyParseError) {
          o.activity?.record(0, [{ index: -1, error: `invalid body: ${err.message}` }]);
          throw new ApiError(400, 'invalid_body', err.message);
        }
        throw err;
      }
      const ack = req.query.ack === 'buffered' || req.query.ack === 'stored' ? req.query.ack : o.ack;
      const result = await withTimeout(ingestor.ingest(items, { wait: ack === 'stored', project: forcedProject(req) }), o.waitMs);
      o.activity?.record(result.accepted, result.rejected);
      const status = result.rejected.length === 0 ? 200 : result.accepted > 0 ? 207 : 400;
      res.status(status).json(result);
    },
  );
  return router;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError(503, 'storage_slow', `storage did not confirm the write within ${ms} ms; the events stay buffered, retrying them is safe`, {
            'Retry-After': '5',
          }),
        ),
      ms,
    );
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
