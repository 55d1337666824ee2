// Everything Kafka in one process: topic setup at start, the consumer (serve and ingest), the
// producer of POST /v1/events (serve), and the ingest status (lag per partition, rates, DLQ).
import type { Admin, Kafka } from 'kafkajs';
import type { Config } from '../../config/config.js';
import type { KafkaIngestStatus } from '../../schemas/ingest-status.js';
import type { Logger } from '../../config/logger.js';
import type { BatchWriter } from '../batch-writer.js';
import { createKafka } from './kafka-client.js';
import { KafkaEventConsumer, type SubmitPath } from './event-consumer.js';
import { KafkaEventProducer } from './event-producer.js';
import { ensureTopics } from './topics.js';
import type { KafkaLeaderElection } from './leader-election.js';

export interface KafkaRuntimeOptions {
  /** Run a consumer of the topic in this process. */
  consume: boolean;
  /** Produce POST /v1/events to the topic. */
  produce: boolean;
}

export class KafkaRuntime {
  readonly kafka: Kafka;
  consumer: KafkaEventConsumer | null = null;
  producer: KafkaEventProducer | null = null;
  /** This process's part in the leader election of the singleton work (runtime/attach-kafka.ts). */
  leader: KafkaLeaderElection | null = null;
  private admin: Admin | null = null;
  private lastError: { message: string; at: string } | null = null;

  constructor(
    private readonly config: Pick<Config, 'kafka' | 'defaultProject' | 'ingest'>,
    private readonly log: Logger,
  ) {
    this.kafka = createKafka(config.kafka, log);
  }

  /** Connects, creates the topics when missing, and starts what `o` asks for. */
  async start(deps: { ingestor: SubmitPath; writer: BatchWriter }, o: KafkaRuntimeOptions): Promise<void> {
    const k = this.config.kafka;
    this.admin = this.kafka.admin();
    await this.admin.connect();
    const created = await ensureTopics(this.admin, [
      { topic: k.topic, numPartitions: k.partitions },
      { topic: k.dlqTopic, numPartitions: 1 },
    ]);
    if (created.length) this.log.info(`kafka: created topics ${created.join(', ')}`);
    if (o.produce) {
      this.producer = new KafkaEventProducer(this.kafka, {
        topic: k.topic,
        maxTextChars: this.config.ingest.maxTextChars,
        defaultProject: this.config.defaultProject,
      });
      await this.producer.start();
    }
    if (o.consume) {
      this.consumer = new KafkaEventConsumer(this.kafka, deps.ingestor, deps.writer, {
        topic: k.topic,
        dlqTopic: k.dlqTopic,
        groupId: k.groupId,
        concurrency: k.consumerConcurrency,
        fetchMaxBytes: k.fetchMaxBytes,
        maxInFlightEvents: k.maxInFlightEvents,
      }, this.log);
      await this.consumer.start();
    }
  }

  async close(): Promise<void> {
    // The lead first: the singleton work stops before anything else does.
    await this.leader?.close();
    await this.consumer?.stop();
    await this.producer?.stop();
    await this.admin?.disconnect().catch(() => {});
  }

  /** True when the broker answers (bounded by the client's timeouts). */
  async reachable(): Promise<boolean> {
    if (!this.admin) return false;
    try {
      await withTimeout(this.admin.describeCluster(), 3_000);
      return true;
    } catch (err) {
      this.lastError = { message: (err as Error).message, at: new Date().toISOString() };
      return false;
    }
  }

  async status(): Promise<KafkaIngestStatus> {
    const k = this.config.kafka;
    const c = this.consumer;
    const s: KafkaIngestStatus = {
      mode: 'kafka',
      brokers: k.brokers,
      topic: k.topic,
      dlq_topic: k.dlqTopic,
      group_id: k.groupId,
      reachable: false,
      consumer: c
        ? {
            running: c.running,
            paused: c.stats.paused,
            paused_reason: c.stats.pausedReason,
            assigned_partitions: c.assigned,
            events_consumed: c.stats.eventsConsumed,
            events_per_second: Math.round(c.stats.rate()),
            batches: c.stats.batches,
            dlq_sent: c.stats.dlqSent,
            recent_dead_letters: [...c.stats.recentDeadLetters],
            in_flight_events: c.eventsInFlight,
          }
        : null,
      producer: this.producer ? { events_produced: this.producer.eventsProduced } : null,
      partitions: [],
      lag_total: null,
      dlq_count: null,
      last_error: latest(c?.stats.lastError ?? null, this.lastError),
    };
    if (!this.admin) return s;
    try {
      const [ends, groups, dlqEnds] = await withTimeout(
        Promise.all([
          this.admin.fetchTopicOffsets(k.topic),
          this.admin.fetchOffsets({ groupId: k.groupId, topics: [k.topic] }),
          this.admin.fetchTopicOffsets(k.dlqTopic),
        ]),
        5_000,
      );
      const committed = new Map((groups[0]?.partitions ?? []).map((p) => [p.partition, p.offset]));
      s.partitions = ends
        .map((e) => {
          const c = committed.get(e.partition);
          const has = c !== undefined && Number(c) >= 0;
          const lag = Number(e.high) - (has ? Number(c) : Number(e.low));
          return { partition: e.partition, committed: has ? c! : null, high_watermark: e.high, lag: Math.max(0, lag) };
        })
        .sort((a, b) => a.partition - b.partition);
      s.lag_total = s.partitions.reduce((n, p) => n + p.lag, 0);
      s.dlq_count = dlqEnds.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
      s.reachable = true;
    } catch (err) {
      this.lastError = { message: (err as Error).message, at: new Date().toISOString() };
      s.last_error = latest(s.last_error, this.lastError);
    }
    return s;
  }
}

function latest<T extends { at: string }>(a: T | null, b: T | null): T | null {
  if (!a) return b;
  if (!b) return a;
  return a.at >= b.at ? a : b;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Kafka did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
