// The one configuration module: parses the environment (and command-line overrides) with zod
// at start. Nothing else reads process.env.
import { resolve } from 'node:path';
import { z } from 'zod';

const int = (def: number) => z.coerce.number().int().positive().default(def);
/** Like int, where 0 turns the feature off. */
const intOrOff = (def: number) => z.coerce.number().int().nonnegative().default(def);
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

const envSchema = z.object({
  TRAJSCOPE_HOST: z.string().min(1).default('127.0.0.1'),
  TRAJSCOPE_PORT: z.coerce.number().int().min(0).max(65535).default(7300),
  TRAJSCOPE_DATA_DIR: z.string().min(1).default('./data'),
  TRAJSCOPE_ADMIN_TOKEN: optionalString,
  TRAJSCOPE_PRICES: optionalString,
  TRAJSCOPE_DEFAULT_PROJECT: z.string().min(1).default('default'),
  TRAJSCOPE_MAX_BODY_BYTES: int(64 * 1024 * 1024),
  TRAJSCOPE_MAX_TEXT_CHARS: int(32 * 1024),
  TRAJSCOPE_BATCH_MAX_ROWS: int(50_000),
  TRAJSCOPE_BATCH_MAX_AGE_MS: int(1_000),
  TRAJSCOPE_BUFFER_MAX_ROWS: int(500_000),
  TRAJSCOPE_BUFFER_MAX_BYTES: int(256 * 1024 * 1024),
  TRAJSCOPE_INGEST_WAIT_MS: int(30_000),
  TRAJSCOPE_INGEST_ACK: z.enum(['stored', 'buffered']).default('stored'),
  TRAJSCOPE_INSERT_FORMAT: z.enum(['rowbinary', 'json']).default('rowbinary'),
  TRAJSCOPE_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  TRAJSCOPE_LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  CLICKHOUSE_URL: optionalString.pipe(z.url({ message: 'CLICKHOUSE_URL must be a URL such as http://127.0.0.1:8123' }).optional()),
  CLICKHOUSE_USER: optionalString,
  CLICKHOUSE_PASSWORD: optionalString,
  CLICKHOUSE_DATABASE: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier').default('default'),
  CLICKHOUSE_CLUSTER: optionalString,
  KAFKA_BROKERS: optionalString,
  KAFKA_TOPIC: z.string().min(1).default('trajscope.events'),
  KAFKA_DLQ_TOPIC: optionalString,
  KAFKA_GROUP_ID: z.string().min(1).default('trajscope-ingest'),
  KAFKA_CLIENT_ID: z.string().min(1).default('trajscope'),
  KAFKA_PARTITIONS: int(6),
  KAFKA_PRODUCE: z.enum(['true', 'false']).default('true'),
  KAFKA_CONSUMER_CONCURRENCY: int(6),
  KAFKA_FETCH_MAX_BYTES: int(256 * 1024),
  // Three writer batches: one being inserted, one filling, one fetched ahead.
  KAFKA_MAX_IN_FLIGHT_EVENTS: int(150_000),
  KAFKA_CONTROL_TOPIC: optionalString,
  TRAJSCOPE_LEADER_GROUP: optionalString,
  // The broker refuses sessions shorter than its group.min.session.timeout.ms (6 s by default).
  TRAJSCOPE_LEADER_SESSION_MS: z.coerce.number().int().min(1000).default(10_000),
  TRAJSCOPE_SQL_MAX_SECONDS: int(15),
  TRAJSCOPE_SQL_MAX_ROWS_READ: int(500_000_000),
  TRAJSCOPE_SQL_MAX_RESULT_ROWS: int(10_000),
  TRAJSCOPE_SQL_MAX_RESULT_BYTES: int(64 * 1024 * 1024),
  TRAJSCOPE_SQL_MAX_MEMORY_BYTES: int(2 * 1024 * 1024 * 1024),
  TRAJSCOPE_INGEST_RATE_PER_SECOND: z.coerce.number().positive().default(50),
  TRAJSCOPE_INGEST_RATE_BURST: int(200),
  TRAJSCOPE_SQL_RATE_PER_MINUTE: z.coerce.number().positive().default(60),
  TRAJSCOPE_SQL_RATE_BURST: int(10),
  TRAJSCOPE_READ_RATE_PER_SECOND: z.coerce.number().positive().default(20),
  TRAJSCOPE_READ_RATE_BURST: int(100),
  // Read budgets (dashboard and API reads, SQL console): sized for a 2-core machine.
  TRAJSCOPE_READ_CONCURRENCY: int(8),
  TRAJSCOPE_READ_QUEUE: intOrOff(32),
  TRAJSCOPE_READ_KEY_CONCURRENCY: int(4),
  TRAJSCOPE_READ_KEY_QUEUE: intOrOff(8),
  TRAJSCOPE_READ_QUEUE_WAIT_MS: int(10_000),
  TRAJSCOPE_READ_MAX_SECONDS: intOrOff(60),
  TRAJSCOPE_SHUTDOWN_TIMEOUT_MS: int(10_000),
  TRAJSCOPE_KEYS_REFRESH_SECONDS: int(10),
  TRAJSCOPE_IDLE_TIMEOUT_MS: int(30 * 60_000),
  TRAJSCOPE_ANALYSIS_DELAY_MS: int(200),
  TRAJSCOPE_ANALYSIS_DEBOUNCE_MS: int(2_000),
  TRAJSCOPE_ANALYSIS_SWEEP_MS: int(60_000),
  TRAJSCOPE_ANALYSIS_BATCH_RUNS: int(2_000),
  TRAJSCOPE_ANALYSIS_SCAN_ROWS: int(50_000),
  TRAJSCOPE_ANALYSIS_RESCAN_MS: intOrOff(3_600_000),
  TRAJSCOPE_ANALYSIS_CLOSE_WAIT_MS: intOrOff(2_000),
  TRAJSCOPE_COMPACT_IDLE_MS: intOrOff(10_000),
  TRAJSCOPE_LOOP_MIN_REPEATS: int(3),
  TRAJSCOPE_LOOP_MIN_CYCLE_REPETITIONS: int(3),
  TRAJSCOPE_LOOP_STALL_ERROR_STEPS: int(4),
  TRAJSCOPE_LOOP_STALL_STEPS: int(8),
  TRAJSCOPE_LIVE_LOOP_MAX_RUNS: int(20_000),
  TRAJSCOPE_LIVE_LOOP_IDLE_MS: int(10 * 60_000),
  TRAJSCOPE_COST_SPIKE_Z: z.coerce.number().positive().default(3.5),
  TRAJSCOPE_CONTEXT_BLOWUP_FACTOR: z.coerce.number().positive().default(2),
  TRAJSCOPE_HOURLY_SPEND_FACTOR: z.coerce.number().positive().default(3),
  TRAJSCOPE_HACKING_PATTERNS: z.string().optional(),
  TRAJSCOPE_GATE_MAX_COMPLETION_DROP: z.coerce.number().min(0).max(1).default(0.05),
  TRAJSCOPE_GATE_MAX_COST_INCREASE: z.coerce.number().min(0).default(0.25),
  TRAJSCOPE_GATE_MIN_RUNS: int(30),
  TRAJSCOPE_PUBLIC_URL: optionalString.pipe(z.url({ message: 'TRAJSCOPE_PUBLIC_URL must be a URL such as https://trajscope.example.com' }).optional()),
  TRAJSCOPE_WEBHOOK_ALLOW: z.string().default(''),
  TRAJSCOPE_ALERT_EVAL_MS: int(15_000),
  TRAJSCOPE_WEBHOOK_TIMEOUT_MS: int(5_000),
  TRAJSCOPE_WEBHOOK_MAX_ATTEMPTS: int(6),
  TRAJSCOPE_WEBHOOK_RETRY_BASE_MS: int(1_000),
  TRAJSCOPE_WEBHOOK_RETRY_MAX_MS: int(5 * 60_000),
});

export type Env = z.input<typeof envSchema>;

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  adminToken?: string;
  pricesFile?: string;
  defaultProject: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** JSON lines on stderr, or pretty lines; auto: pretty when stderr is a terminal. */
  logFormat: 'auto' | 'json' | 'pretty';
  ingest: {
    maxBodyBytes: number;
    maxTextChars: number;
    batchMaxRows: number;
    batchMaxAgeMs: number;
    bufferMaxRows: number;
    bufferMaxBytes: number;
    /** How long an HTTP request waits for its rows to be stored before answering 503. */
    waitMs: number;
    /**
     * When POST /v1/events answers: 'stored' (default; the events are in ClickHouse) or
     * 'buffered' (validated and in the writer's buffer, written within batchMaxAgeMs; faster,
     * but a crash loses what is buffered). A request can ask for either with ?ack=.
     */
    ack: 'stored' | 'buffered';
    /**
     * How steps, tool calls and scores travel to the embedded engine: RowBinary (about half the
     * engine's CPU of JSON) or JSON. A ClickHouse server always gets JSON.
     */
    insertFormat: 'rowbinary' | 'json';
  };
  clickhouse: { url?: string; user?: string; password?: string; database: string; cluster?: string };
  kafka: {
    brokers: string[];
    topic: string;
    /** Dead-letter topic of messages that cannot be parsed or validated. */
    dlqTopic: string;
    groupId: string;
    clientId: string;
    /** Partitions of the topics created at start when missing. */
    partitions: number;
    /** POST /v1/events produces to the topic (instead of writing storage directly). */
    produce: boolean;
    /** Partitions whose batches one consumer processes at the same time. */
    consumerConcurrency: number;
    /** Most bytes fetched per partition per request. */
    fetchMaxBytes: number;
    /** Events fetched and handed to the writer but not yet committed, at most. */
    maxInFlightEvents: number;
    /** One-partition topic of the leader election: its holder leads; it also carries the leader's progress. */
    controlTopic: string;
    /** Consumer group of the leader election (all processes of a deployment share it). */
    leaderGroupId: string;
    /** A leader that stops heartbeating loses the lead after this long (it stops its work after half of it). */
    leaderSessionMs: number;
  };
  /** Limits of the SQL console (each query; rows are capped in code as well). */
  sql: { maxSeconds: number; maxRowsRead: number; maxResultRows: number; maxResultBytes: number; maxMemoryBytes: number };
  /** Per API key (token buckets, in-process): ingest requests, SQL console queries and other reads; 429 beyond. */
  rateLimits: { ingestPerSecond: number; ingestBurst: number; sqlPerMinute: number; sqlBurst: number; readPerSecond: number; readBurst: number };
  /**
   * Reads (GET /api/..., the SQL console) run at most `concurrency` at a time in this process,
   * `queue` more wait (at most `queueWaitMs`), beyond that 503 with Retry-After; with keys, each
   * key also at most `keyConcurrency` at a time with `keyQueue` waiting, beyond that 429. A read
   * whose client goes away is cancelled in the engine; `maxSeconds` bounds each query of a
   * request (0: no bound).
   */
  reads: { concurrency: number; queue: number; keyConcurrency: number; keyQueue: number; queueWaitMs: number; maxSeconds: number };
  /** SIGTERM/SIGINT: the process exits within this long (what is left is logged; analyses are re-derived at the next start). */
  shutdownTimeoutMs: number;
  /** How often the API keys are re-read from storage (revocations by other processes). */
  keysRefreshSeconds: number;
  analysis: {
    /** A run with no run_end and no event for this long is abandoned. */
    idleTimeoutMs: number;
    /** Wait after a run_end before analysing (coalesces the rest of its batch). */
    delayMs: number;
    /** Re-analyse a run that is still going (or got late events) at most this often. */
    debounceMs: number;
    /** How often to look for idle (abandoned) runs, and for a due rescan. */
    sweepMs: number;
    /** Runs read back and analysed per batch at most. */
    batchRuns: number;
    /** Rows of `runs` per key range of the scan for runs stored without analysis (one bounded query each). */
    scanRows: number;
    /** That scan runs at start, then again this long after it finished (0: at start only). */
    rescanMs: number;
    /** On shutdown: how long the analyzer's batch in flight may still take (the rest is found at the next start). */
    closeWaitMs: number;
    /** Embedded engine: merge run_analysis into one part after this long without writes (0: never). */
    compactIdleMs: number;
    loops: { minRepeats: number; minCycleRepetitions: number; stallErrorSteps: number; stallSteps: number };
    /** Live loop detection: runs tracked at most, and idle time after which one is dropped. */
    liveMaxRuns: number;
    liveIdleMs: number;
    costSpikeZ: number;
    contextBlowupFactor: number;
    hourlySpendFactor: number;
    /** Reward-hacking patterns as JSON (analytics/hacking-evidence.ts parseHackingPatterns), instead of the defaults they name. */
    hackingPatterns?: string;
  };
  alerts: {
    /** Base URL of the dashboard in alert links (default: the server's own address). */
    publicUrl?: string;
    /** Webhook targets allowed although private/loopback/link-local: host names and CIDRs. */
    webhookAllow: string[];
    /** How often window rules (metric_threshold, completion_rate_drop, cost_spike) are evaluated. */
    evalIntervalMs: number;
    /** Per delivery attempt: time allowed for the receiver's answer. */
    timeoutMs: number;
    /** Attempts per delivery (the first and the retries) before it ends as failed. */
    maxAttempts: number;
    /** Backoff before retry n: min(max, base · 2^(n−1)), with jitter. */
    retryBaseMs: number;
    retryMaxMs: number;
  };
  gate: {
    /** Largest allowed drop of the completion rate (absolute, 0.05 = 5 points). */
    maxCompletionDrop: number;
    /** Largest allowed relative rise of cost per success (0.25 = +25%). */
    maxCostIncrease: number;
    /** Fewest ended runs each cohort needs for a verdict (fewer: exit 3). */
    minRuns: number;
  };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses settings from an environment-like object; throws ConfigError naming each bad value. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message} (got ${JSON.stringify(env[String(i.path[0])])})`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  // A cluster is a set of ClickHouse servers; the embedded engine is one node, and the cluster's
  // name goes into the migrations' statements as a plain identifier.
  if (e.CLICKHOUSE_CLUSTER !== undefined && (!e.CLICKHOUSE_URL || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(e.CLICKHOUSE_CLUSTER))) {
    throw new ConfigError(
      e.CLICKHOUSE_URL
        ? `invalid configuration:\n  CLICKHOUSE_CLUSTER: must be a plain cluster name (letters, digits, _) (got ${JSON.stringify(e.CLICKHOUSE_CLUSTER)})`
        : `invalid configuration:\n  CLICKHOUSE_CLUSTER: needs CLICKHOUSE_URL (a server of the cluster); the embedded engine cannot be a cluster (got ${JSON.stringify(e.CLICKHOUSE_CLUSTER)})`,
    );
  }
  return {
    host: e.TRAJSCOPE_HOST,
    port: e.TRAJSCOPE_PORT,
    dataDir: resolve(e.TRAJSCOPE_DATA_DIR),
    adminToken: e.TRAJSCOPE_ADMIN_TOKEN,
    pricesFile: e.TRAJSCOPE_PRICES,
    defaultProject: e.TRAJSCOPE_DEFAULT_PROJECT,
    logLevel: e.TRAJSCOPE_LOG_LEVEL,
    logFormat: e.TRAJSCOPE_LOG_FORMAT,
    ingest: {
      maxBodyBytes: e.TRAJSCOPE_MAX_BODY_BYTES,
      maxTextChars: e.TRAJSCOPE_MAX_TEXT_CHARS,
      batchMaxRows: e.TRAJSCOPE_BATCH_MAX_ROWS,
      batchMaxAgeMs: e.TRAJSCOPE_BATCH_MAX_AGE_MS,
      bufferMaxRows: e.TRAJSCOPE_BUFFER_MAX_ROWS,
      bufferMaxBytes: e.TRAJSCOPE_BUFFER_MAX_BYTES,
      waitMs: e.TRAJSCOPE_INGEST_WAIT_MS,
      ack: e.TRAJSCOPE_INGEST_ACK,
      insertFormat: e.TRAJSCOPE_INSERT_FORMAT,
    },
    clickhouse: {
      url: e.CLICKHOUSE_URL,
      user: e.CLICKHOUSE_USER,
      password: e.CLICKHOUSE_PASSWORD,
      database: e.CLICKHOUSE_DATABASE,
      cluster: e.CLICKHOUSE_CLUSTER,
    },
    kafka: {
      brokers: (e.KAFKA_BROKERS ?? '').split(',').map((b) => b.trim()).filter(Boolean),
      topic: e.KAFKA_TOPIC,
      dlqTopic: e.KAFKA_DLQ_TOPIC ?? `${e.KAFKA_TOPIC}.dlq`,
      groupId: e.KAFKA_GROUP_ID,
      clientId: e.KAFKA_CLIENT_ID,
      partitions: e.KAFKA_PARTITIONS,
      produce: e.KAFKA_PRODUCE === 'true',
      consumerConcurrency: e.KAFKA_CONSUMER_CONCURRENCY,
      fetchMaxBytes: e.KAFKA_FETCH_MAX_BYTES,
      maxInFlightEvents: e.KAFKA_MAX_IN_FLIGHT_EVENTS,
      controlTopic: e.KAFKA_CONTROL_TOPIC ?? `${e.KAFKA_TOPIC}.control`,
      leaderGroupId: e.TRAJSCOPE_LEADER_GROUP ?? `${e.KAFKA_GROUP_ID}.leader`,
      leaderSessionMs: e.TRAJSCOPE_LEADER_SESSION_MS,
    },
    sql: {
      maxSeconds: e.TRAJSCOPE_SQL_MAX_SECONDS,
      maxRowsRead: e.TRAJSCOPE_SQL_MAX_ROWS_READ,
      maxResultRows: e.TRAJSCOPE_SQL_MAX_RESULT_ROWS,
      maxResultBytes: e.TRAJSCOPE_SQL_MAX_RESULT_BYTES,
      maxMemoryBytes: e.TRAJSCOPE_SQL_MAX_MEMORY_BYTES,
    },
    rateLimits: {
      ingestPerSecond: e.TRAJSCOPE_INGEST_RATE_PER_SECOND,
      ingestBurst: e.TRAJSCOPE_INGEST_RATE_BURST,
      sqlPerMinute: e.TRAJSCOPE_SQL_RATE_PER_MINUTE,
      sqlBurst: e.TRAJSCOPE_SQL_RATE_BURST,
      readPerSecond: e.TRAJSCOPE_READ_RATE_PER_SECOND,
      readBurst: e.TRAJSCOPE_READ_RATE_BURST,
    },
    reads: {
      concurrency: e.TRAJSCOPE_READ_CONCURRENCY,
      queue: e.TRAJSCOPE_READ_QUEUE,
      keyConcurrency: e.TRAJSCOPE_READ_KEY_CONCURRENCY,
      keyQueue: e.TRAJSCOPE_READ_KEY_QUEUE,
      queueWaitMs: e.TRAJSCOPE_READ_QUEUE_WAIT_MS,
      maxSeconds: e.TRAJSCOPE_READ_MAX_SECONDS,
    },
    shutdownTimeoutMs: e.TRAJSCOPE_SHUTDOWN_TIMEOUT_MS,
    keysRefreshSeconds: e.TRAJSCOPE_KEYS_REFRESH_SECONDS,
    analysis: {
      idleTimeoutMs: e.TRAJSCOPE_IDLE_TIMEOUT_MS,
      delayMs: e.TRAJSCOPE_ANALYSIS_DELAY_MS,
      debounceMs: e.TRAJSCOPE_ANALYSIS_DEBOUNCE_MS,
      sweepMs: e.TRAJSCOPE_ANALYSIS_SWEEP_MS,
      batchRuns: e.TRAJSCOPE_ANALYSIS_BATCH_RUNS,
      scanRows: e.TRAJSCOPE_ANALYSIS_SCAN_ROWS,
      rescanMs: e.TRAJSCOPE_ANALYSIS_RESCAN_MS,
      closeWaitMs: e.TRAJSCOPE_ANALYSIS_CLOSE_WAIT_MS,
      compactIdleMs: e.TRAJSCOPE_COMPACT_IDLE_MS,
      loops: {
        minRepeats: e.TRAJSCOPE_LOOP_MIN_REPEATS,
        minCycleRepetitions: e.TRAJSCOPE_LOOP_MIN_CYCLE_REPETITIONS,
        stallErrorSteps: e.TRAJSCOPE_LOOP_STALL_ERROR_STEPS,
        stallSteps: e.TRAJSCOPE_LOOP_STALL_STEPS,
      },
      liveMaxRuns: e.TRAJSCOPE_LIVE_LOOP_MAX_RUNS,
      liveIdleMs: e.TRAJSCOPE_LIVE_LOOP_IDLE_MS,
      costSpikeZ: e.TRAJSCOPE_COST_SPIKE_Z,
      contextBlowupFactor: e.TRAJSCOPE_CONTEXT_BLOWUP_FACTOR,
      hourlySpendFactor: e.TRAJSCOPE_HOURLY_SPEND_FACTOR,
      hackingPatterns: e.TRAJSCOPE_HACKING_PATTERNS,
    },
    alerts: {
      publicUrl: e.TRAJSCOPE_PUBLIC_URL,
      webhookAllow: e.TRAJSCOPE_WEBHOOK_ALLOW.split(',').map((x) => x.trim()).filter(Boolean),
      evalIntervalMs: e.TRAJSCOPE_ALERT_EVAL_MS,
      timeoutMs: e.TRAJSCOPE_WEBHOOK_TIMEOUT_MS,
      maxAttempts: e.TRAJSCOPE_WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: e.TRAJSCOPE_WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: e.TRAJSCOPE_WEBHOOK_RETRY_MAX_MS,
    },
    gate: {
      maxCompletionDrop: e.TRAJSCOPE_GATE_MAX_COMPLETION_DROP,
      maxCostIncrease: e.TRAJSCOPE_GATE_MAX_COST_INCREASE,
      minRuns: e.TRAJSCOPE_GATE_MIN_RUNS,
    },
  };
}
