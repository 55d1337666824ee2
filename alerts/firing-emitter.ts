// Sends what a claim decided: stores the firing (history) and its state, and hands its webhooks
// to the durable delivery worker; also the test payload of a rule. With a leader election, a
// window firing has an id derived from its rule, cohort, action and evaluation slot, and its
// state and deliveries go to the leader's progress log before anything is sent.
import { randomUUID } from 'node:crypto';
import type { AlertPayload } from '../schemas/alert-payload.js';
import { renderBody } from '../analytics/alerts/payload.js';
import { WINDOW_KINDS, type AlertRule } from '../schemas/alert-rules.js';
import type { AlertsStore, OutboxItem } from '../storage/queries/alerts-store.js';
import type { DeliveryWorker } from './delivery-worker.js';
import type { AlertStats, FiringClaims } from './firing-claims.js';
import { linkFor } from './alert-links.js';
import { deliveryRecordKey, stateRecordKey, windowDeliveryId, windowFiringId, type ProgressLog } from './leader-gate.js';

export interface LeaderProgress {
  log: ProgressLog;
  /** The window rules' evaluation interval: the slot of a firing's id. */
  slotMs: number;
}

/** What a firing says, besides its rule: the payload's parts and the run it is about. */
export type FiringParts = Pick<AlertPayload, 'summary' | 'key' | 'run' | 'cohort' | 'values' | 'loop'> & { project: string; run_id: string };

export class FiringEmitter {
  constructor(
    private readonly store: AlertsStore,
    private readonly worker: DeliveryWorker,
    private readonly claims: FiringClaims,
    private readonly stats: AlertStats,
    private readonly base: string,
    private readonly clock: () => number,
    private readonly progress?: LeaderProgress,
  ) {}

  /** Stores the firing and its state, and hands its webhooks to the delivery worker. */
  async emit(rule: AlertRule, key: string, action: 'fire' | 'resolve', parts: FiringParts): Promise<void> {
    const now = this.clock();
    const status = action === 'fire' ? 'firing' : 'resolved';
    const leader = this.progress && WINDOW_KINDS.includes(rule.kind) ? this.progress : undefined;
    const payload: AlertPayload = {
      id: leader ? windowFiringId(rule.id, key, action, Math.floor(now / leader.slotMs)) : randomUUID(),
      type: action === 'fire' ? 'alert.firing' : 'alert.resolved',
      status,
      rule: { id: rule.id, name: rule.name },
      kind: rule.kind,
      severity: rule.severity,
      summary: action === 'resolve' ? `resolved: ${parts.summary}` : parts.summary,
      key,
      run: parts.run,
      cohort: parts.cohort,
      values: parts.values,
      ...(parts.loop ? { loop: parts.loop } : {}),
      url: linkFor(this.base, parts),
      fired_at: new Date(now).toISOString(),
    };
    if (action === 'fire') this.stats.fired++;
    else this.stats.resolved++;
    const state = this.claims.state(rule.id, key);
    const items = this.deliveries(rule, payload, now, !!leader);
    if (leader) {
      // Recorded before anything is sent: the next leader knows this firing, and sends what is
      // left of it. Throws when this process lost the lead meanwhile (nothing is sent then).
      if (state) await leader.log.append(stateRecordKey(rule.id, key), { rule_id: rule.id, key, state });
      for (const item of items) await leader.log.append(deliveryRecordKey(item.delivery_id), item);
    }
    // The outbox first (its write is what the first attempt waits for); history and state alongside.
    await Promise.all([
      this.worker.submit(items, { leaderOwned: !!leader }),
      this.store.insertFiring({
        firing_id: payload.id, rule_id: rule.id, rule_name: rule.name, kind: rule.kind, severity: rule.severity, status, key,
        project: parts.project, run_id: parts.run_id, summary: payload.summary, payload: JSON.stringify(payload), fired_at: now,
      }),
      state ? this.store.saveState(rule.id, key, state) : Promise.resolve(),
    ]);
  }

  /** Sends a test payload to the rule's webhooks (or one of them); returns the delivery ids. */
  async sendTest(rule: AlertRule, webhookId?: string): Promise<string[]> {
    const now = this.clock();
    const payload: AlertPayload = {
      id: randomUUID(),
      type: 'alert.test',
      status: 'test',
      rule: { id: rule.id, name: rule.name },
      kind: rule.kind,
      severity: rule.severity,
      summary: `test of the alert rule "${rule.name}"`,
      key: 'test',
      run: null,
      cohort: null,
      values: {},
      url: `${this.base}/alerts`,
      fired_at: new Date(now).toISOString(),
    };
    const items = this.deliveries(rule, payload, now).filter((d) => !webhookId || d.webhook_id === webhookId);
    await Promise.all([
      this.store.insertFiring({
        firing_id: payload.id, rule_id: rule.id, rule_name: rule.name, kind: rule.kind, severity: rule.severity, status: 'test', key: 'test',
        project: '', run_id: '', summary: payload.summary, payload: JSON.stringify(payload), fired_at: now,
      }),
      this.worker.submit(items),
    ]);
    return items.map((i) => i.delivery_id);
  }

  private deliveries(rule: AlertRule, payload: AlertPayload, now: number, derived = false): OutboxItem[] {
    return rule.webhooks.map((w) => ({
      delivery_id: derived ? windowDeliveryId(payload.id, w.id) : randomUUID(),
      firing_id: payload.id,
      rule_id: rule.id,
      webhook_id: w.id,
      url: w.url,
      format: w.format,
      body: renderBody(payload, w.format),
      state: 'pending',
      attempts: 0,
      next_attempt_at: now,
      last_error: '',
      created_at: now,
    }));
  }
}
