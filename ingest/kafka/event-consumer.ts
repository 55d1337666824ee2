// The Kafka consumer of `trajscope ingest` (and of `serve` when KAFKA_BROKERS is set): a member
// of the consumer group that reads batches per partition, validates each message through the
// shared ingest path (EventIngestor.ingest, so whatever hooks into ingest applies to Kafka too),
// sends the ones that fail to the dead-letter topic, and commits offset + 1 only once the rows
// of the batch are stored and its dead letters acknowledged. A crash or a rebalance re-delivers
// from the last commit; re-delivered events do not double count (the writer's insert
// deduplication tokens cover its own retries, the tables' natural-key ReplacingMergeTree the
// re-deliveries; exact counts read with FINAL).
import type { Consumer, EachBatchPayload, Kafka, Producer } from 'kafkajs';
import type { IngestResponse } from '../../schemas/api.js';
import type { Logger } from '../../server/logger.js';
import { BackpressureError, type BatchWriter } from '../batch-writer.js';
import type { IngestCall } from '../event-ingestor.js';
import type { ParsedItem } from '../parse-body.js';
import { deadLetterMessage, type DeadLetter } from './dead-letters.js';
import { IngestStats } from './ingest-stats.js';
import { parseMessages } from './parse-messages.js';

export interface IngestPath {
  ingest(items: readonly ParsedItem[], call?: IngestCall): Promise<IngestResponse>;
}

export interface EventConsumerOptions {
  topic: string;
  dlqTopic: string;
  groupId: string;
  /** Partitions processed at the same time (their rows share the writer's batches). */
  concurrency: number;
  /** Most bytes fetched per partition per request. */
  fetchMaxBytes: number;
  /** Heartbeat this often while a batch is being stored. */
  heartbeatMs?: number;
  /** Longest wait of a fetch for new data (latency when quiet). */
  maxWaitMs?: number;
}

export class KafkaEventConsumer {
  readonly stats = new IngestStats();
  private consumer: Consumer | null = null;
  private dlq: Producer | null = null;
  private monitor: NodeJS.Timeout | null = null;
  private stopping = false;
  private pausedForStorage = false;
  /** Partitions assigned to this member at its last group join. */
  assigned: number[] = [];

  constructor(
    private readonly kafka: Kafka,
    private readonly ingestor: IngestPath,
    private readonly writer: BatchWriter,
    private readonly opts: EventConsumerOptions,
    private readonly log: Logger,
  ) {}

  get running(): boolean {
    return this.consumer !== null && !this.stopping;
  }

  async start(): Promise<void> {
    const o = this.opts;
    this.dlq = this.kafka.producer({ allowAutoTopicCreation: false });
    await this.dlq.connect();
    const consumer = this.kafka.consumer({
      groupId: o.groupId,
      // A crashed member's partitions move on after this long (heartbeats go every 3 s, also
      // during long writes).
      sessionTimeout: 10_000,
      rebalanceTimeout: 60_000,
      heartbeatInterval: 3_000,
      maxBytesPerPartition: o.fetchMaxBytes,
      maxBytes: o.fetchMaxBytes * Math.max(1, o.concurrency),
      maxWaitTimeInMs: o.maxWaitMs ?? 100,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      this.assigned = [...(e.payload.memberAssignment[o.topic] ?? [])].sort((a, b) => a - b);
      this.log.info(`kafka: joined group ${o.groupId}, partitions [${this.assigned.join(', ')}] of ${o.topic}`);
    });
    consumer.on(consumer.events.CRASH, (e) => {
      this.stats.error(e.payload.error);
      this.log.warn(`kafka consumer crashed (restart: ${e.payload.restart})`, e.payload.error);
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [o.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: Math.max(1, o.concurrency),
      eachBatch: (payload) => this.handleBatch(payload),
    });
    // While storage fails, stop fetching more (the batches in hand keep retrying).
    this.monitor = setInterval(() => this.watchStorage(), 250);
    this.monitor.unref();
  }

  /** Leaves the group after the batches in hand are stored and committed. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.monitor) clearInterval(this.monitor);
    // Leaving waits for the batches in hand; during a storage outage that can take a while, so
    // give up after a bound: what was not committed is simply re-delivered to the next owner.
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((r) => {
      timer = setTimeout(() => {
        this.log.warn('kafka consumer: batches still in hand after 30 s; leaving without them (they will be re-delivered)');
        r();
      }, 30_000);
    });
    await Promise.race([this.consumer?.disconnect().catch((err) => this.log.warn('kafka consumer disconnect failed', err)), bound]);
    clearTimeout(timer);
    await this.dlq?.disconnect().catch(() => {});
  }

  private watchStorage(): void {
    const c = this.consumer;
    if (!c || this.stopping) return;
    const failing = this.writer.getStats().failing;
    if (failing && !this.pausedForStorage) {
      this.pausedForStorage = true;
      this.setPaused(true, 'storage is failing; retrying the batches in hand');
      c.pause([{ topic: this.opts.topic }]);
    } else if (!failing && this.pausedForStorage) {
      this.pausedForStorage = false;
      this.setPaused(false, '');
      c.resume([{ topic: this.opts.topic }]);
    }
  }

  private setPaused(paused: boolean, reason: string): void {
    if (paused !== this.stats.paused) this.log.warn(paused ? `kafka consumer paused: ${reason}` : 'kafka consumer resumed');
    this.stats.paused = paused;
    this.stats.pausedReason = reason;
  }

  private async handleBatch(p: EachBatchPayload): Promise<void> {
    const { batch } = p;
    if (batch.messages.length === 0) return;
    const heartbeat = setInterval(() => void p.heartbeat().catch(() => {}), this.opts.heartbeatMs ?? 2_000);
    try {
      const items = parseMessages(batch.messages);
      const result = await this.store(items, p);
      if (!result) return; // shutting down or revoked: not committed, so it is re-delivered
      const dead: DeadLetter[] = result.rejected.map((r) => ({ message: batch.messages[r.index], reason: r.error }));
      if (dead.length && !(await this.sendDeadLetters(dead, batch.topic, batch.partition, p))) return;
      this.stats.consumed(batch.messages.length);
      this.stats.batches++;
    } finally {
      clearInterval(heartbeat);
    }
    // Everything of the batch is stored (or dead-lettered): now, and only now, commit.
    const last = batch.lastOffset();
    p.resolveOffset(last);
    const next = (BigInt(last) + 1n).toString();
    try {
      await this.consumer!.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
      this.stats.commits++;
      this.stats.seen(batch.partition, { committed: next, highWatermark: batch.highWatermark });
    } catch (err) {
      // Typically a rebalance: the new owner re-reads from the last commit; no event is lost
      // and re-delivered ones do not double count.
      this.stats.error(err);
      this.log.warn(`kafka: commit of ${batch.topic}[${batch.partition}]@${next} failed`, err);
    }
  }

  /** Stores the batch's valid events, waiting while the writer is full; undefined when stopping. */
  private async store(items: ParsedItem[], p: EachBatchPayload): Promise<IngestResponse | undefined> {
    for (let attempt = 1; ; attempt++) {
      if (!p.isRunning() || p.isStale()) return undefined;
      try {
        const r = await this.ingestor.ingest(items, { wait: true });
        if (this.stats.paused && !this.pausedForStorage) this.setPaused(false, '');
        return r;
      } catch (err) {
        if (!(err instanceof BackpressureError)) {
          this.stats.error(err);
          throw err;
        }
        // The writer's buffer is full (storage slow or down): wait, then offer the batch again.
        if (!this.stats.paused) this.setPaused(true, 'the write buffer is full');
        await sleep(Math.min(5_000, 100 * attempt));
      }
    }
  }

  private async sendDeadLetters(dead: DeadLetter[], topic: string, partition: number, p: EachBatchPayload): Promise<boolean> {
    const messages = dead.map((d) => deadLetterMessage(d, { topic, partition }));
    for (let attempt = 1; ; attempt++) {
      if (!p.isRunning() || p.isStale()) return false;
      try {
        await this.dlq!.send({ topic: this.opts.dlqTopic, acks: -1, messages });
        this.stats.dlqSent += messages.length;
        return true;
      } catch (err) {
        this.stats.error(err);
        this.log.warn(`kafka: sending ${messages.length} dead letters to ${this.opts.dlqTopic} failed (attempt ${attempt})`, err);
        await sleep(Math.min(10_000, 200 * 2 ** Math.min(attempt, 6)));
      }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
