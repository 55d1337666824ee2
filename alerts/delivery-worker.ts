// Delivers webhooks from the durable outbox: a delivery is written to alert_outbox before its
// first attempt; every attempt is logged (alert_delivery_attempts) and moves the delivery to
// delivered, failed (after the last attempt, or an answer that will not change) or back to
// pending with the next attempt after an exponential backoff with jitter. At start the pending
// deliveries of the outbox are loaded again, so a restart loses none (an attempt cut short by a
// crash is sent again: receivers de-duplicate by Idempotency-Key, the firing's id).
//
// With a leader election (docs/kafka.md), the deliveries of window firings and those loaded from
// the outbox are the leader's: attempted only while this process leads (checked before each
// attempt), each outcome recorded in the leader's progress log, and dropped from memory when the
// lead is lost (the next leader has them from that log).
import { retryDelayMs } from '../analytics/alerts/backoff.js';
import { signatureHeaders } from '../analytics/alerts/payload.js';
import type { WebhookAllowList } from '../analytics/alerts/webhook-target.js';
import type { AlertsStore, OutboxItem } from '../storage/queries/alerts-store.js';
import { postWebhook } from './webhook-sender.js';

export interface DeliveryOptions {
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  allow: WebhookAllowList;
  /** The webhook's signing secret; undefined when the rule or webhook no longer exists. */
  secretOf: (ruleId: string, webhookId: string) => string | undefined;
  /** Attempts in flight at most. */
  concurrency?: number;
  onError?: (msg: string, err: unknown) => void;
  /** Whether this process leads (absent: always). */
  leading?: () => boolean;
  /** Records the outcome of an attempt of a leader's delivery (the leader's progress log). */
  recordLeaderOutcome?: (item: OutboxItem) => Promise<void>;
}

export class DeliveryWorker {
  private readonly pending = new Map<string, OutboxItem>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private readonly stop = new AbortController();
  /** Deliveries of the leader's work, and what cuts their attempts short when the lead is lost. */
  private readonly leaderOwned = new Set<string>();
  private leaderStop = new AbortController();
  private closed = false;
  readonly stats = { delivered: 0, failed: 0, retried: 0 };

  constructor(
    private readonly store: AlertsStore,
    private readonly opts: DeliveryOptions,
  ) {}

  /** Loads the outbox's pending deliveries (after a restart; those `which` keeps) and starts sending them. */
  async start(which: (item: OutboxItem) => boolean = () => true): Promise<void> {
    const items = (await this.store.pendingOutbox()).filter(which);
    if (this.opts.leading) this.adopt(items);
    else for (const item of items) this.pending.set(item.delivery_id, item);
    this.kick();
  }

  /** Takes on deliveries as the leader's (the outbox's, or those a previous leader left pending). */
  adopt(items: readonly OutboxItem[]): void {
    this.leaderStop = new AbortController();
    for (const item of items) {
      // Already in hand (this process's own, in memory since it submitted them): left as they are.
      if (this.inFlight.has(item.delivery_id) || this.pending.has(item.delivery_id)) continue;
      this.pending.set(item.delivery_id, item);
      this.leaderOwned.add(item.delivery_id);
    }
    this.kick();
  }

  /** The lead is lost: the leader's deliveries are dropped from memory and their attempts cut short. */
  release(): void {
    this.leaderStop.abort();
    for (const id of this.leaderOwned) this.pending.delete(id);
    this.leaderOwned.clear();
  }

  /** Deliveries waiting for an attempt or in one. */
  get backlog(): number {
    return this.pending.size;
  }

  /** Writes new deliveries to the outbox, then attempts them at once. */
  async submit(items: readonly OutboxItem[], o: { leaderOwned?: boolean } = {}): Promise<void> {
    if (items.length === 0) return;
    await this.store.writeOutbox(items);
    if (this.closed) return; // stored: the next start sends them
    for (const item of items) {
      this.pending.set(item.delivery_id, item);
      if (o.leaderOwned) this.leaderOwned.add(item.delivery_id);
    }
    this.kick();
  }

  private mayAttempt(id: string): boolean {
    return !this.leaderOwned.has(id) || (this.opts.leading?.() ?? true);
  }

  /** Stops attempting; attempts in flight are cut short and stay pending in the outbox. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stop.abort();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private kick(): void {
    if (this.closed) return;
    const now = Date.now();
    const limit = this.opts.concurrency ?? 16;
    let next = Infinity;
    for (const item of this.pending.values()) {
      if (this.inFlight.has(item.delivery_id) || !this.mayAttempt(item.delivery_id)) continue;
      if (item.next_attempt_at <= now) {
        if (this.inFlight.size >= limit) break;
        const p = this.attempt(item)
          .catch((err) => this.opts.onError?.('webhook delivery bookkeeping failed; it will be retried', err))
          .finally(() => {
            this.inFlight.delete(item.delivery_id);
            this.kick();
          });
        this.inFlight.set(item.delivery_id, p);
      } else next = Math.min(next, item.next_attempt_at);
    }
    if (next < this.timerAt || !this.timer) this.schedule(next);
  }

  private schedule(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    if (!Number.isFinite(at)) return;
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      this.kick();
    }, Math.max(0, at - Date.now()));
    this.timer.unref();
  }

  private async attempt(item: OutboxItem): Promise<void> {
    const owned = this.leaderOwned.has(item.delivery_id);
    // Checked again right before sending: the lead may have been lost since the item was queued.
    if (!this.mayAttempt(item.delivery_id)) return;
    const secret = this.opts.secretOf(item.rule_id, item.webhook_id);
    const attempt = item.attempts + 1;
    const ts = Date.now();
    let result;
    if (secret === undefined) {
      result = { ok: false, status: null, error: 'the rule or webhook was deleted', retryable: false, aborted: false, duration_ms: 0 };
    } else {
      const unix = Math.floor(ts / 1000);
      result = await postWebhook(item.url, item.body, {
        timeoutMs: this.opts.timeoutMs,
        allow: this.opts.allow,
        signal: owned ? AbortSignal.any([this.stop.signal, this.leaderStop.signal]) : this.stop.signal,
        headers: {
          ...signatureHeaders(secret, unix, item.body),
          // The same for every attempt and every leader of one firing: receivers de-duplicate by it.
          'Idempotency-Key': item.firing_id,
          'X-Trajscope-Delivery': item.delivery_id,
          'X-Trajscope-Attempt': String(attempt),
        },
      });
    }
    if (result.aborted) return; // shutting down or the lead lost: stays pending (outbox, progress log)
    let outcome: 'delivered' | 'retry' | 'failed';
    if (result.ok) outcome = 'delivered';
    else if (!result.retryable || attempt >= this.opts.maxAttempts) outcome = 'failed';
    else outcome = 'retry';
    const updated: OutboxItem = {
      ...item,
      attempts: attempt,
      state: outcome === 'retry' ? 'pending' : outcome,
      last_error: result.error,
      next_attempt_at: outcome === 'retry' ? Date.now() + retryDelayMs(attempt, { baseMs: this.opts.retryBaseMs, maxMs: this.opts.retryMaxMs }) : Date.now(),
    };
    if (outcome === 'retry') {
      this.pending.set(item.delivery_id, updated);
      this.stats.retried++;
    } else {
      this.pending.delete(item.delivery_id);
      this.leaderOwned.delete(item.delivery_id);
      if (outcome === 'delivered') this.stats.delivered++;
      else this.stats.failed++;
    }
    await Promise.all([
      owned && this.opts.recordLeaderOutcome ? this.opts.recordLeaderOutcome(updated) : undefined,
      this.store.insertAttempt({
        delivery_id: item.delivery_id,
        attempt,
        firing_id: item.firing_id,
        rule_id: item.rule_id,
        webhook_id: item.webhook_id,
        url: item.url,
        ts,
        outcome,
        status_code: result.status,
        error: result.error,
        duration_ms: result.duration_ms,
      }),
      this.store.writeOutbox([updated]),
    ]);
  }
}
