// Opens what a Trajscope process runs on: storage (migrated), the batching writer and the
// ingest path. Used by `serve`, `import`, `demo` and the tests.
import type { Config } from '../bin/config.js';
import { BatchWriter, rowBinaryEncoders } from '../ingest/batch-writer.js';
import { EventIngestor } from '../ingest/event-ingestor.js';
import { RunAnalyzer } from '../ingest/analysis/run-analyzer.js';
import { TableCompactor } from '../storage/compaction.js';
import { LiveLoopDetector } from '../ingest/analysis/live-loops.js';
import { loadPriceBook } from '../ingest/load-prices.js';
import type { KafkaRuntime } from '../ingest/kafka/kafka-runtime.js';
import { openConsoleClient, openStorage, type Storage } from '../storage/gateway.js';
import { SqlConsole } from './sql/sql-console.js';
import { AlertEngine } from './alerts/alert-engine.js';
import { KeysStore } from './auth/keys-store.js';
import { migrate } from '../storage/migrate.js';
import { createLogger, type Logger } from './logger.js';

export interface Services {
  config: Config;
  log: Logger;
  storage: Storage;
  writer: BatchWriter;
  ingestor: EventIngestor;
  /** Analyses runs after their events are stored (run_analysis). */
  analyzer: RunAnalyzer;
  /** Merges run_analysis when writes go quiet (embedded engine). */
  compactor: TableCompactor;
  /** Live dead-loop detection of active runs (loop_detected signals). */
  liveLoops: LiveLoopDetector;
  /** Kafka consumer / producer of this process, when KAFKA_BROKERS is set (serve, ingest). */
  kafka?: KafkaRuntime;
  /** Read-only ad-hoc SQL on its own connection. */
  sqlConsole: SqlConsole;
  /** Alert rules, their evaluation and webhook deliveries (durable outbox). */
  alerts: AlertEngine;
  /** API keys (hashes), held in memory for authentication. */
  keys: KeysStore;
  close(): Promise<void>;
}

export interface ServiceOptions {
  log?: Logger;
  /** Storage to use instead of opening the configured one (e.g. wrapped to inject faults). */
  storage?: Storage;
}

export async function openServices(config: Config, o: ServiceOptions = {}): Promise<Services> {
  const log = o.log ?? createLogger(config.logLevel);
  const prices = loadPriceBook(config.pricesFile);
  const storage = o.storage ?? (await openStorage({ ...config.clickhouse, dataDir: config.dataDir }));
  try {
    const applied = await migrate(storage);
    if (applied.length) log.info(`applied migrations: ${applied.join(', ')}`);
  } catch (err) {
    await storage.close().catch(() => {});
    throw err;
  }
  const writer = new BatchWriter(storage, {
    maxRows: config.ingest.batchMaxRows,
    maxAgeMs: config.ingest.batchMaxAgeMs,
    maxBufferedRows: config.ingest.bufferMaxRows,
    maxBufferedBytes: config.ingest.bufferMaxBytes,
    retryBaseMs: 100,
    retryMaxMs: 10_000,
    onInsertError: (table, attempt, err) => log.warn(`insert into ${table} failed (attempt ${attempt}), retrying`, err),
    encoders: config.ingest.insertFormat === 'rowbinary' ? await rowBinaryEncoders(storage) : undefined,
  });
  const ingestor = new EventIngestor(writer, prices, {
    maxTextChars: config.ingest.maxTextChars,
    defaultProject: config.defaultProject,
  });
  const analyzer = new RunAnalyzer(storage, {
    delayMs: config.analysis.delayMs,
    debounceMs: config.analysis.debounceMs,
    sweepMs: config.analysis.sweepMs,
    idleTimeoutMs: config.analysis.idleTimeoutMs,
    loops: config.analysis.loops,
    beforeRead: () => writer.flush(),
    onError: (err) => log.warn('run analysis failed; it will be retried', err),
  });
  ingestor.observe(analyzer.observer);
  analyzer.start();
  const compactor = new TableCompactor(storage, {
    tables: ['run_analysis'],
    idleMs: storage.embedded ? config.analysis.compactIdleMs : 0,
    onCompacted: (table, ms) => log.debug(`compacted ${table} in ${ms} ms`),
    onError: (err) => log.warn('compacting run_analysis failed; it will be retried', err),
  });
  compactor.start();
  const alerts = new AlertEngine(storage, { config, prices, onError: (msg, err) => log.warn(msg, err) });
  await alerts.start();
  ingestor.observe((events) => alerts.onEvents(events));
  const liveLoops = new LiveLoopDetector({
    thresholds: config.analysis.loops,
    maxRuns: config.analysis.liveMaxRuns,
    idleMs: config.analysis.liveIdleMs,
    costOf: (step) => prices.cost(step.model, step),
    record: async (signals) => {
      alerts.onLoopSignals(signals); // alerts do not wait for the signals table
      await storage.insert('signals', signals);
    },
    onError: (err) => log.warn('recording loop signals failed', err),
  });
  ingestor.observe((events, parts) => liveLoops.notify(events, parts));
  const sqlConsole = new SqlConsole(
    (tableFilters) => openConsoleClient({ ...config.clickhouse, dataDir: config.dataDir }, config.sql, tableFilters),
    storage,
    config.sql.maxResultRows,
    (msg, err) => log.warn(msg, err),
  );
  const keys = new KeysStore(storage, { refreshMs: config.keysRefreshSeconds * 1000, onError: (err) => log.warn('reloading API keys failed', err) });
  await keys.start();
  let closed = false;
  const services: Services = {
    config,
    log,
    storage,
    writer,
    ingestor,
    analyzer,
    compactor,
    liveLoops,
    sqlConsole,
    keys,
    alerts,
    async close() {
      if (closed) return;
      closed = true;
      // The consumer first: its batches in hand are stored and committed before the writer stops.
      await services.kafka?.close().catch((err) => log.error('closing Kafka failed', err));
      await writer.close();
      await liveLoops.close();
      await alerts.close();
      await analyzer.close();
      await compactor.close();
      keys.close();
      await sqlConsole.close();
      await storage.close();
    },
  };
  return services;
}
