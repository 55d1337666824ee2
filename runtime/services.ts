// Opens what a Trajscope process runs on: storage (migrated), the batching writer and the
// ingest path. Used by `serve`, `import`, `demo` and the tests.
import { parseHackingPatterns } from '../analytics/hacking-evidence.js';
import type { Config } from '../config/config.js';
import { BatchWriter, rowBinaryEncoders } from '../ingest/batch-writer.js';
import { EventIngestor } from '../ingest/event-ingestor.js';
import { RunAnalyzer } from '../ingest/analysis/run-analyzer.js';
import { TableCompactor } from '../storage/compaction.js';
import { LiveLoopDetector } from '../ingest/analysis/live-loops.js';
import { LiveRuns } from '../ingest/live-runs.js';
import { loadPriceBook } from '../ingest/load-prices.js';
import type { KafkaRuntime } from '../ingest/kafka/kafka-runtime.js';
import { openConsoleClient, openStorage, type Storage } from '../storage/gateway.js';
import { SqlConsole } from '../server/sql/sql-console.js';
import { AlertEngine } from '../alerts/alert-engine.js';
import { KeysStore } from '../storage/queries/keys-store.js';
import { migrate } from '../storage/migrate.js';
import { insertSignals } from '../storage/queries/signals-queries.js';
import { createLogger, type Logger } from '../config/logger.js';
import type { AppServices } from '../server/app-services.js';
import { Metrics } from '../telemetry/metrics.js';
import { registerServiceMetrics } from './service-metrics.js';
import { NotLeaderError } from '../ingest/kafka/leader-election.js';
import type { Singleton } from '../alerts/leader-gate.js';

/** A process's parts, opened by openServices and closed by close(). */
export interface Services extends AppServices {
  /** Merges run_analysis when writes go quiet (embedded engine). */
  compactor: TableCompactor;
  close(): Promise<void>;
}

export interface ServiceOptions {
  log?: Logger;
  /** Storage to use instead of opening the configured one (e.g. wrapped to inject faults). */
  storage?: Storage;
}

export async function openServices(config: Config, o: ServiceOptions = {}): Promise<Services> {
  const log = o.log ?? createLogger(config.logLevel, { format: config.logFormat });
  const prices = loadPriceBook(config.pricesFile);
  // Refused before anything opens: a pattern that does not compile names itself.
  const hacking = config.analysis.hackingPatterns === undefined ? undefined : parseHackingPatterns(config.analysis.hackingPatterns);
  const storage = o.storage ?? (await openStorage({ ...config.clickhouse, dataDir: config.dataDir, runIdleTimeoutMs: config.analysis.idleTimeoutMs }));
  try {
    const applied = await migrate(storage, undefined, (name, upgrade) => upgrade && log.info(`applying migration ${name}`));
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
    // The writer says an outage once, then how it goes (attempts 4, 8, 16...), and names rows the engine refused; never their contents.
    log: (line) => log.warn(line),
    encoders: config.ingest.insertFormat === 'rowbinary' ? await rowBinaryEncoders(storage) : undefined,
  });
  // One live state of active runs for the live observers (loop detection, alerts), taken with each batch.
  const live = new LiveRuns({ maxRuns: config.analysis.liveMaxRuns, idleMs: config.analysis.liveIdleMs });
  const ingestor = new EventIngestor(writer, prices, {
    maxTextChars: config.ingest.maxTextChars,
    defaultProject: config.defaultProject,
    live,
  });
  const analyzer = new RunAnalyzer(storage, {
    delayMs: config.analysis.delayMs,
    debounceMs: config.analysis.debounceMs,
    sweepMs: config.analysis.sweepMs,
    idleTimeoutMs: config.analysis.idleTimeoutMs,
    batchRuns: config.analysis.batchRuns,
    scanRows: config.analysis.scanRows,
    rescanMs: config.analysis.rescanMs,
    // A ClickHouse server shared by the processes of a Kafka deployment: the leader rescans it.
    leadsRescan: config.clickhouse.url && config.kafka.brokers.length > 0 ? () => services.kafka?.leader?.leading ?? false : undefined,
    closeWaitMs: config.analysis.closeWaitMs,
    loops: config.analysis.loops,
    hacking,
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
  // With Kafka, the processes of a deployment elect the one that runs the singleton work (the
  // election starts with the Kafka side, runtime/attach-kafka.ts); until then none is leader.
  // Without Kafka this process is the deployment and leads.
  const singleton: Singleton | undefined =
    config.kafka.brokers.length > 0
      ? {
          leading: () => services.kafka?.leader?.leading ?? false,
          log: { append: (key, value) => (services.kafka?.leader ? services.kafka.leader.append(key, value) : Promise.reject(new NotLeaderError(key))) },
        }
      : undefined;
  const alerts = new AlertEngine(storage, { config, live, onError: (msg, err) => log.warn(msg, err), singleton });
  await alerts.start();
  ingestor.observe((events, parts) => alerts.onEvents(events, parts));
  const liveLoops = new LiveLoopDetector({
    thresholds: config.analysis.loops,
    record: async (signals) => {
      alerts.onLoopSignals(signals); // alerts do not wait for the signals table
      await insertSignals(storage, signals);
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
  let closing: Promise<void> | undefined;
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
    metrics: new Metrics(),
    close() {
      // The process's deadline also covers stopping the HTTP server (1 s) and the engine's last
      // calls (runtime/start-server.ts, bin/exit-anyway.ts).
      closing ??= closeWithin(Math.max(1000, config.shutdownTimeoutMs - 3000));
      return closing;
    },
  };
  /**
   * Closes everything within `budgetMs`: the consumer and the writer first (what was accepted is
   * stored), then the rest. Runs still waiting for analysis are not waited for past the deadline:
   * the analyzer's sweep finds them again at the next start (runs stored since their analysis).
   * What is left is logged; reads still in the engine are cancelled before the storage closes.
   */
  async function closeWithin(budgetMs: number): Promise<void> {
    const deadline = Date.now() + budgetMs;
    const left: string[] = [];
    /** Waits for `p` until the deadline; false (and `what` noted) when it did not finish in time. */
    const step = async (what: string, p: () => Promise<unknown>): Promise<boolean> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), Math.max(0, deadline - Date.now()))));
      try {
        const done = await Promise.race([
          Promise.resolve()
            .then(p)
            .catch((err) => log.error(`closing ${what} failed`, err)),
          late,
        ]);
        if (done === 'late') {
          left.push(what);
          return false;
        }
        return true;
      } finally {
        clearTimeout(timer);
      }
    };
    // The consumer first: its batches in hand are stored and committed before the writer stops.
    if (services.kafka) await step('the Kafka consumer', () => services.kafka!.close());
    if (!(await step('the writer', () => writer.close()))) {
      const w = writer.getStats();
      log.error(`shutdown: ${w.bufferedRows} rows were still buffered and not written (events sent with ack=buffered; a sender that waited for ack=stored was not answered and retries)`);
    }
    await step('live loop detection', () => liveLoops.close());
    await step('alerts', () => alerts.close());
    live.close();
    const waiting = analyzer.pending;
    if (!(await step('the run analyzer', () => analyzer.close()))) {
      log.warn(`shutdown: left ${analyzer.pending} of ${waiting} runs waiting for analysis; the next start analyses them again (its sweep finds runs stored since their analysis)`);
    }
    await step('compaction', () => compactor.close());
    keys.close();
    await step('the SQL console', () => sqlConsole.close());
    if (left.length) log.warn(`shutdown: ${left.join(', ')} did not finish within ${budgetMs} ms`);
    // Reads still in the engine are of no use now (an exit while one runs would wait for it).
    await storage.cancelReads?.();
    // Closing the storage waits for the engine's own work: until the deadline, or half a second
    // when the deadline has passed (the process exits after this anyway).
    const until = Math.max(deadline, Date.now() + 500);
    await Promise.race([
      storage.close().catch((err) => log.error('closing storage failed', err)),
      new Promise((r) => setTimeout(r, until - Date.now()).unref()),
    ]);
  }
  registerServiceMetrics(services.metrics, services);
  return services;
}
