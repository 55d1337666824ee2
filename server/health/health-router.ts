// GET /healthz (the process is up) and /readyz (storage reachable and not failing writes; Kafka
// reachable when configured). Both are public (load balancers ask without a key): once keys are
// required, /readyz tells a caller without an admin key only {status}; the details (storage,
// Kafka, the writer's counters, the lead of the singleton work) go to admin keys, or to everyone
// in open mode.
import { Router } from 'express';
import type { Config } from '../../config/config.js';
import type { BatchWriter } from '../../ingest/batch-writer.js';
import type { Storage } from '../../storage/gateway.js';
import { authEnforced, presentsAdminKey } from '../auth/auth-middleware.js';
import type { KeysStore } from '../../storage/queries/keys-store.js';
import type { LeadershipStatus } from '../../ingest/kafka/leader-election.js';

/** What /readyz asks of the Kafka side: the broker, and this process's part in the leader election. */
export interface KafkaHealth {
  reachable(): Promise<boolean>;
  leader?: { status(): LeadershipStatus } | null;
}

export interface HealthAccess {
  config: Pick<Config, 'adminToken'>;
  keys: KeysStore;
}

/** Without `access` (no keys known) the details are always shown, as in open mode. */
export function healthRouter(storage: Storage, writer: BatchWriter, kafka?: KafkaHealth, access?: HealthAccess): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (req, res) => {
    const storageUp = await storage.ping();
    const writes = writer.getStats();
    const kafkaUp = kafka ? await kafka.reachable() : undefined;
    const ready = storageUp && !writes.failing && kafkaUp !== false;
    const status = ready ? 'ready' : 'unready';
    res.status(ready ? 200 : 503);
    const details = !access || !authEnforced(access.config, access.keys) || (await presentsAdminKey(req, access.config, access.keys));
    if (!details) {
      res.json({ status });
      return;
    }
    const lead = kafka?.leader?.status();
    res.json({
      ...(kafka ? { kafka: kafkaUp ? 'up' : 'down' } : {}),
      // A follower is ready too: it serves the API and ingests; only the singleton work waits.
      ...(lead ? { leader: { alerts: lead.leading, epoch: lead.epoch } } : {}),
      status,
      storage: storageUp ? 'up' : 'down',
      writer: { failing: writes.failing, buffered_rows: writes.bufferedRows, rows_written: writes.rowsWritten },
    });
  });
  return router;
}
