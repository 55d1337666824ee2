// The Trajscope client: a bounded in-memory queue that SDK calls append to (never waiting, never
// throwing), and one background sender that takes batches from it (when a batch is full or
// every flushIntervalMs) and delivers them, retrying with backoff and jitter while the server is
// down or saturated. When the queue is full new events are dropped and counted.
import { retryDelay, type BackoffOptions } from './backoff.js';
import { runStartEvent } from './event-builders.js';
import { TrajscopeError } from './errors.js';
import type { StartRunInput, TrajscopeEvent } from './events.js';
import { HttpTransport } from './http-transport.js';
import { KafkaTransport, type KafkaTransportOptions } from './kafka-transport.js';
import { Run, randomId, type RunSink } from './run.js';
import { TransportError, type Transport } from './transport.js';

export interface TrajscopeOptions {
  /** The server, e.g. http://127.0.0.1:7300 (default). Events go to its POST /v1/events. */
  url?: string;
  /** API key with the `ingest` scope (`Authorization: Bearer`). */
  apiKey?: string;
  /** gzip HTTP request bodies (default false). */
  gzip?: boolean;
  /** When the server answers: 'stored' or 'buffered' (see HttpTransportOptions.ack). Default: the server's. */
  ack?: 'stored' | 'buffered';
  /** Send straight to the Kafka topic instead of HTTP (needs the kafkajs package). */
  kafka?: KafkaTransportOptions;
  /** Any other transport (overrides url and kafka). */
  transport?: Transport;
  /** Project of every event (default: the server's, or the API key's). */
  project?: string;
  /** Most events per request (default 500). */
  batchSize?: number;
  /** Send what is queued at least this often (default 1000 ms). */
  flushIntervalMs?: number;
  /** Most events held (queued or being sent); beyond it new events are dropped (default 10,000). */
  maxQueueSize?: number;
  /** First retry waits up to this long, doubling each attempt (default 500 ms). */
  initialBackoffMs?: number;
  /** Longest wait between retries, unless the server's Retry-After asks for more (default 30 s). */
  maxBackoffMs?: number;
  /** Retries of one batch before it is counted as failed (default: no limit, until shutdown). */
  maxRetries?: number;
  /** Per HTTP request (default 60 s). */
  requestTimeoutMs?: number;
  /** Flush (for at most exitFlushTimeoutMs) when the Node process is about to exit (default true). */
  flushOnExit?: boolean;
  exitFlushTimeoutMs?: number;
  /** Problems (dropped, rejected, failed, invalid events). Default: one console warning per kind. */
  onError?: (error: TrajscopeError) => void;
}

export interface ClientStats {
  /** Events taken into the queue. */
  enqueued: number;
  /** Events the server (or Kafka) accepted. */
  sent: number;
  /** Events not kept: the queue was full, or the client had shut down. */
  dropped: number;
  /** Events the server refused as invalid. */
  rejected: number;
  /** Events of batches that could not be delivered. */
  failed: number;
  /** Retried requests. */
  retries: number;
  /** Events queued or being sent right now. */
  pending: number;
}

interface Waiter {
  upTo: number;
  resolve: (drained: boolean) => void;
}

type ProcessLike = { once(e: string, f: () => void): unknown; removeListener(e: string, f: () => void): unknown };

export class TrajscopeClient implements RunSink {
  readonly project?: string;
  private readonly transport: Transport;
  private readonly batchSize: number;
  private readonly maxQueueSize: number;
  private readonly maxRetries: number;
  private readonly backoff: BackoffOptions;
  private readonly onError: (error: TrajscopeError) => void;
  private readonly exitFlushTimeoutMs: number;

  private readonly queue: TrajscopeEvent[] = [];
  private inFlight = 0;
  private draining: Promise<void> | null = null;
  /** Events ever taken into the queue, and how many of those are done with (sent, refused, failed or dropped). */
  private taken = 0;
  private settled = 0;
  private waiters: Waiter[] = [];
  private readonly counts = { sent: 0, dropped: 0, rejected: 0, failed: 0, retries: 0 };
  private readonly stopSending = new AbortController();
  private readonly timer: ReturnType<typeof setInterval>;
  private closed = false;
  private closing: Promise<void> | null = null;
  private readonly exitHook = () => void this.flush(this.exitFlushTimeoutMs);

  constructor(o: TrajscopeOptions = {}) {
    this.project = o.project;
    this.transport =
      o.transport ??
      (o.kafka
        ? new KafkaTransport(o.kafka)
        : new HttpTransport({ url: o.url ?? 'http://127.0.0.1:7300', apiKey: o.apiKey, gzip: o.gzip, ack: o.ack, timeoutMs: o.requestTimeoutMs }));
    this.batchSize = Math.max(1, o.batchSize ?? 500);
    this.maxQueueSize = Math.max(1, o.maxQueueSize ?? 10_000);
    this.maxRetries = o.maxRetries ?? Infinity;
    this.backoff = { initialBackoffMs: o.initialBackoffMs ?? 500, maxBackoffMs: o.maxBackoffMs ?? 30_000 };
    this.onError = o.onError ?? warnOncePerKind();
    this.exitFlushTimeoutMs = o.exitFlushTimeoutMs ?? 5_000;
    this.timer = setInterval(() => this.kick(), Math.max(1, o.flushIntervalMs ?? 1_000));
    unref(this.timer);
    if (o.flushOnExit !== false) processLike()?.once('beforeExit', this.exitHook);
  }

  /** Starts a run: records its run_start and returns its handle. */
  startRun(input: StartRunInput = {}): Run {
    const runId = input.runId ?? randomId();
    try {
      this.emit(runStartEvent({ runId, project: this.project, now: Date.now() }, input));
    } catch (err) {
      this.report(new TrajscopeError('invalid', `startRun ${runId}: ${(err as Error)?.message}`, err));
    }
    return new Run(this, runId);
  }

  /** A handle of a run started elsewhere (another process or worker); steps continue from `nextStep`. */
  run(runId: string, nextStep = 0): Run {
    return new Run(this, runId, nextStep);
  }

  /** Queues one event of the contract as it is; false when it was dropped (queue full or shut down). */
  emit(event: TrajscopeEvent): boolean {
    if (this.closed || this.queue.length + this.inFlight >= this.maxQueueSize) {
      this.counts.dropped++;
      this.report(
        new TrajscopeError('dropped', this.closed ? 'the client has shut down; events are dropped' : `the queue is full (${this.maxQueueSize} events); events are dropped`),
      );
      return false;
    }
    this.queue.push(event);
    this.taken++;
    if (this.queue.length >= this.batchSize) this.kick();
    return true;
  }

  /**
   * Sends everything queued so far; resolves true once all of it was delivered (or refused),
   * false when `timeoutMs` passed first. Never rejects.
   */
  flush(timeoutMs?: number): Promise<boolean> {
    const upTo = this.taken;
    if (this.settled >= upTo) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waiter: Waiter = {
        upTo,
        resolve: (drained) => {
          if (timer) clearTimeout(timer);
          resolve(drained);
        },
      };
      this.waiters.push(waiter);
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs);
      }
      this.kick();
    });
  }

  /**
   * Flushes for at most `timeoutMs` (default 10 s), then stops: what is still queued is counted
   * as dropped, the transport is closed. Later events are dropped. Returns the final counts.
   */
  async shutdown(timeoutMs = 10_000): Promise<ClientStats> {
    this.closing ??= this.close(timeoutMs);
    await this.closing;
    return this.stats();
  }

  stats(): ClientStats {
    return { enqueued: this.taken, ...this.counts, pending: this.queue.length + this.inFlight };
  }

  /** @internal Reports a problem to onError (never throws). */
  report(error: TrajscopeError): void {
    try {
      this.onError(error);
    } catch {
      // an onError that throws must not reach the agent either
    }
  }

  private async close(timeoutMs: number): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    processLike()?.removeListener('beforeExit', this.exitHook);
    const drained = await this.flush(timeoutMs);
    if (!drained) {
      // Stop retrying; the batch being sent is counted by the sender, the rest here.
      this.stopSending.abort();
      const left = this.queue.splice(0);
      this.counts.dropped += left.length;
      this.settle(left.length);
      await Promise.race([this.draining, sleep(2_000)]);
      this.settle(0, true);
    }
    await this.transport.close?.().catch(() => {});
  }

  private kick(): void {
    if (this.draining || this.queue.length === 0 || this.stopSending.signal.aborted) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.queue.length > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.stopSending.signal.aborted) {
      const batch = this.queue.splice(0, this.batchSize);
      this.inFlight = batch.length;
      try {
        await this.deliver(batch);
      } catch (err) {
        // deliver() handles its errors; this is a bug's safety net
        this.counts.failed += batch.length;
        this.report(new TrajscopeError('failed', `sending failed: ${(err as Error)?.message}`, err));
      } finally {
        this.inFlight = 0;
        this.settle(batch.length);
      }
    }
  }

  /** Delivers one batch: retries what may succeed later, halves a batch the server finds too large. */
  private async deliver(batch: TrajscopeEvent[]): Promise<void> {
    const signal = this.stopSending.signal;
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) {
        this.counts.dropped += batch.length;
        return;
      }
      let result;
      try {
        result = await this.transport.send(batch, signal);
      } catch (e) {
        const err = e instanceof TransportError ? e : new TransportError((e as Error)?.message ?? String(e), true, { cause: e });
        if (signal.aborted) {
          this.counts.dropped += batch.length;
          return;
        }
        if (err.opts.tooLarge && batch.length > 1) {
          const half = Math.ceil(batch.length / 2);
          await this.deliver(batch.slice(0, half));
          await this.deliver(batch.slice(half));
          return;
        }
        if (!err.retryable || attempt >= this.maxRetries) {
          this.counts.failed += batch.length;
          this.report(new TrajscopeError('failed', `${batch.length} events not delivered: ${err.message}`, err));
          return;
        }
        this.counts.retries++;
        await sleep(retryDelay(attempt, err.opts.retryAfterMs, this.backoff), signal);
        continue;
      }
      this.counts.sent += result.accepted;
      if (result.rejected.length > 0) {
        this.counts.rejected += result.rejected.length;
        const first = result.rejected[0]!;
        const e = batch[first.index];
        const where = e ? ` (${e.type} of run ${e.run_id})` : '';
        this.report(new TrajscopeError('rejected', `${result.rejected.length} events refused by the server, e.g.${where}: ${first.error}`));
      }
      return;
    }
  }

  private settle(n: number, all = false): void {
    this.settled += n;
    const done = this.waiters.filter((w) => all || w.upTo <= this.settled);
    if (done.length === 0) return;
    this.waiters = this.waiters.filter((w) => !done.includes(w));
    for (const w of done) w.resolve(this.settled >= w.upTo);
  }
}

/** Sleeps without keeping the process alive; ends early when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    unref(timer);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

function unref(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}

function processLike(): ProcessLike | undefined {
  const p = (globalThis as { process?: Partial<ProcessLike> }).process;
  return typeof p?.once === 'function' && typeof p.removeListener === 'function' ? (p as ProcessLike) : undefined;
}

function warnOncePerKind(): (error: TrajscopeError) => void {
  const seen = new Set<string>();
  return (error) => {
    if (seen.has(error.kind)) return;
    seen.add(error.kind);
    console.warn(`trajscope: ${error.message} (further "${error.kind}" problems are not logged; see stats() or pass onError)`);
  };
}
