// The alert engine: keeps the rules and their per-key state in memory (persisted in ClickHouse),
// turns live signals of the ingest path into firings within a second or two (live-firing.ts:
// dead_loop from the live loop detector's recorded signals, run_cost_over from the running cost
// of active runs), evaluates window rules on a schedule (window-scheduler.ts), and hands each
// firing's webhooks to the durable delivery worker (firing-emitter.ts). With a leader election
// (docs/kafka.md) the window rules and the outbox's retries run only while this process leads
// (lead() and stepDown()); live firings stay with the process that ingested their events.
import type { Config } from '../config/config.js';
import { WINDOW_KINDS, type AlertRule } from '../schemas/alert-rules.js';
import type { ControlLogFold } from '../ingest/kafka/control-log.js';
import { deliveryRecordKey, replayedProgress, type Singleton } from './leader-gate.js';
import { WebhookAllowList } from '../analytics/alerts/webhook-target.js';
import type { LoopSignal } from '../ingest/analysis/live-loops.js';
import type { LiveRuns } from '../ingest/live-runs.js';
import type { BatchParts } from '../ingest/priced-batch.js';
import type { TrajEvent } from '../schemas/normalize-event.js';
import type { Storage } from '../storage/gateway.js';
import { AlertsStore } from '../storage/queries/alerts-store.js';
import { baseUrl } from './alert-links.js';
import { DeliveryWorker } from './delivery-worker.js';
import { FiringClaims, type AlertStats } from './firing-claims.js';
import { FiringEmitter } from './firing-emitter.js';
import { LiveFiring } from './live-firing.js';
import { RuleCache } from './rule-cache.js';
import { WindowScheduler } from './window-scheduler.js';

export interface AlertEngineOptions {
  config: Pick<Config, 'alerts' | 'analysis' | 'host' | 'port'>;
  /** The live state of active runs the ingest path keeps (attributes, running cost, latest steps). */
  live: LiveRuns;
  onError: (msg: string, err: unknown) => void;
  clock?: () => number;
  /** The leader election, when the deployment has one: the singleton work waits for lead(). */
  singleton?: Singleton;
}

export class AlertEngine {
  readonly store: AlertsStore;
  readonly worker: DeliveryWorker;
  readonly allow: WebhookAllowList;
  readonly stats: AlertStats = { fired: 0, resolved: 0, suppressed: 0 };
  private readonly rules: RuleCache;
  private readonly claims: FiringClaims;
  private readonly emitter: FiringEmitter;
  private readonly liveFiring: LiveFiring;
  private readonly windows: WindowScheduler;
  private readonly pendingWork = new Set<Promise<unknown>>();
  private closed = false;

  constructor(storage: Storage, private readonly opts: AlertEngineOptions) {
    const clock = opts.clock ?? Date.now;
    const a = opts.config.alerts;
    this.store = new AlertsStore(storage);
    this.allow = new WebhookAllowList(a.webhookAllow);
    this.rules = new RuleCache(this.store);
    this.worker = new DeliveryWorker(this.store, {
      timeoutMs: a.timeoutMs,
      maxAttempts: a.maxAttempts,
      retryBaseMs: a.retryBaseMs,
      retryMaxMs: a.retryMaxMs,
      allow: this.allow,
      secretOf: (ruleId, webhookId) => this.rules.secretOf(ruleId, webhookId),
      onError: opts.onError,
      leading: opts.singleton?.leading,
      // A delivery that ended (delivered, failed) leaves the log; one to retry is recorded as it is now.
      recordLeaderOutcome: opts.singleton ? (item) => opts.singleton!.log.append(deliveryRecordKey(item.delivery_id), item.state === 'pending' ? item : null) : undefined,
    });
    this.claims = new FiringClaims(this.store, clock, this.stats);
    const progress = opts.singleton ? { log: opts.singleton.log, slotMs: a.evalIntervalMs } : undefined;
    this.emitter = new FiringEmitter(this.store, this.worker, this.claims, this.stats, baseUrl(opts.config), clock, progress);
    const shared = { storage, rules: this.rules, claims: this.claims, emitter: this.emitter };
    this.liveFiring = new LiveFiring({ ...shared, live: opts.live, track: (p) => this.track(p) });
    this.windows = new WindowScheduler({
      ...shared, intervalMs: a.evalIntervalMs, costSpikeZ: opts.config.analysis.costSpikeZ, onError: opts.onError, clock, leading: opts.singleton?.leading,
    });
  }

  async start(): Promise<void> {
    await this.rules.reload();
    await this.claims.load();
    if (this.opts.singleton) return; // the singleton work starts on lead()
    await this.worker.start();
    this.windows.start();
  }

  /** Whether this process runs the singleton work (window rules, outbox retries) now. */
  leading(): boolean {
    return this.opts.singleton?.leading() ?? true;
  }

  /**
   * This process leads: the window rules' states become those earlier leaders recorded, the
   * deliveries they left pending and the outbox's are sent, and the window rules are evaluated.
   */
  async lead(log: ControlLogFold): Promise<void> {
    if (this.closed) return;
    const progress = replayedProgress(log);
    const ofWindowRule = (id: string) => {
      const rule = this.rules.get(id);
      return !rule || WINDOW_KINDS.includes(rule.kind);
    };
    this.claims.replaceStates(ofWindowRule, progress.states);
    this.worker.adopt(progress.deliveries);
    // The window firings' deliveries are the progress log's (another leader may have sent those
    // this process's outbox still lists as pending); the outbox gives the rest.
    await this.worker.start((item) => !ofWindowRule(item.rule_id));
    if (this.leading()) this.windows.start();
  }

  /** This process no longer leads: the window rules stop and the leader's deliveries are dropped. */
  async stepDown(): Promise<void> {
    this.worker.release();
    await this.windows.stop();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.windows.close();
    await Promise.allSettled([...this.pendingWork]);
    await this.worker.close();
  }

  /** Resolves once the firings started so far are stored and handed to the delivery worker. */
  async idle(): Promise<void> {
    while (this.pendingWork.size) await Promise.allSettled([...this.pendingWork]);
  }

  /** Re-reads the rules (after a change through the API). */
  reloadRules(): Promise<void> {
    return this.rules.reload();
  }

  /** The rules (with secrets: callers show them through toPublicRule). */
  listRules(): AlertRule[] {
    return this.rules.list();
  }

  getRule(id: string): AlertRule | undefined {
    return this.rules.get(id);
  }

  /** A batch as the ingestor took it (the writer has its rows), with its parts: run_cost_over rules fire. */
  onEvents(events: readonly TrajEvent[], parts: BatchParts): void {
    if (!this.closed) this.liveFiring.onEvents(events, parts);
  }

  /** Loop signals the live loop detector has just stored: dead_loop rules fire. */
  onLoopSignals(signals: readonly LoopSignal[]): void {
    if (!this.closed) this.liveFiring.onLoopSignals(signals);
  }

  /** Evaluates every enabled window rule once now (also runs on the schedule). */
  evaluateWindows(): Promise<void> {
    return this.windows.evaluate();
  }

  /** Sends a test payload to the rule's webhooks (or one of them); returns the delivery ids. */
  sendTest(rule: AlertRule, webhookId?: string): Promise<string[]> {
    return this.emitter.sendTest(rule, webhookId);
  }

  private track(p: Promise<unknown>): void {
    const tracked = p.catch((err) => this.opts.onError('alert firing failed', err)).finally(() => this.pendingWork.delete(tracked));
    this.pendingWork.add(tracked);
  }
}
