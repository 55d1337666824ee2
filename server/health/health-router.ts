// GET /healthz (the process is up) and /readyz (storage reachable and not failing writes; Kafka
// reachable when configured).
import { Router } from 'express';
import type { BatchWriter } from '../../ingest/batch-writer.js';
import type { Storage } from '../../storage/gateway.js';

export function healthRouter(storage: Storage, writer: BatchWriter, kafka?: { reachable(): Promise<boolean> }): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const storageUp = await storage.ping();
    const writes = writer.getStats();
    const kafkaUp = kafka ? await kafka.reachable() : undefined;
    const ready = storageUp && !writes.failing && kafkaUp !== false;
    res.status(ready ? 200 : 503).json({
      ...(kafka ? { kafka: kafkaUp ? 'up' : 'down' } : {}),
      status: ready ? 'ready' : 'unready',
      storage: storageUp ? 'up' : 'down',
      writer: { failing: writes.failing, buffered_rows: writes.bufferedRows, rows_written: writes.rowsWritten },
    });
  });
  return router;
}
