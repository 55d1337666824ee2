// GET /api/v1/ingest/status: how ingest is doing. With Kafka: per-partition lag of the consumer
// group, this process's events/s, rows written, DLQ count and the last error; embedded: the writer.
// Both: POST /v1/events' accepted events per second and its recent rejections (IngestActivity).
import { Router } from 'express';
import type { IngestStatus } from '../../schemas/ingest-status.js';
import type { Services } from '../services.js';
import type { IngestActivity } from './ingest-activity.js';

export function ingestStatusRouter(s: Services, activity?: IngestActivity): Router {
  const router = Router();
  router.get('/api/v1/ingest/status', async (_req, res) => {
    const w = s.writer.getStats();
    const writer: IngestStatus['writer'] = {
      rows_written: w.rowsWritten,
      buffered_rows: w.bufferedRows,
      flushes: w.flushes,
      insert_errors: w.insertErrors,
      failing: w.failing,
    };
    if (!s.kafka) {
      res.json({ mode: 'embedded', writer, activity: activity?.snapshot() } satisfies IngestStatus);
      return;
    }
    res.json({ ...(await s.kafka.status()), writer, activity: activity?.snapshot() } satisfies IngestStatus);
  });
  return router;
}
