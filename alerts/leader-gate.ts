// What the alert engine's singleton work (window rules, outbox retries) needs of the leader
// election: whether this process leads now (checked before each step), and the leader's
// progress log (the control topic) where it records each window firing's state and deliveries,
// so the next leader neither sends them again nor loses them. Without Kafka there is neither:
// the process is the deployment and leads.
import { createHash } from 'node:crypto';
import type { AlertState } from '../analytics/alerts/firing-decisions.js';
import type { ControlLogFold } from '../ingest/kafka/control-log.js';
import type { OutboxItem } from '../storage/queries/alerts-store.js';

export interface ProgressLog {
  /** Appends a record with this leader's epoch; throws when this process does not lead. `null` removes the key. */
  append(key: string, value: unknown): Promise<void>;
}

export interface Singleton {
  leading(): boolean;
  log: ProgressLog;
}

export interface RecordedState {
  rule_id: string;
  key: string;
  state: AlertState;
}

const STATE = 'alert-state:';
const DELIVERY = 'alert-delivery:';

export const stateRecordKey = (ruleId: string, key: string): string => `${STATE}${ruleId}\u0000${key}`;
export const deliveryRecordKey = (deliveryId: string): string => `${DELIVERY}${deliveryId}`;

/** The earlier leaders' progress: window rule states, and deliveries not delivered or failed yet. */
export function replayedProgress(fold: ControlLogFold): { states: RecordedState[]; deliveries: OutboxItem[] } {
  return {
    states: fold.values(STATE).filter(isRecordedState),
    deliveries: fold.values(DELIVERY).filter(isOutboxItem).filter((d) => d.state === 'pending'),
  };
}

/**
 * The id of a window firing: the same for the same rule, cohort, action and evaluation slot in
 * every process, so a leader that takes over recognises (and a receiver de-duplicates) a firing
 * its predecessor already sent. UUID-shaped, like the other firing ids.
 */
export function windowFiringId(ruleId: string, key: string, action: string, slot: number): string {
  return uuidOf(`firing\u0000${ruleId}\u0000${key}\u0000${action}\u0000${slot}`);
}

/** The id of a window firing's delivery to one webhook (one per firing and webhook). */
export function windowDeliveryId(firingId: string, webhookId: string): string {
  return uuidOf(`delivery\u0000${firingId}\u0000${webhookId}`);
}

function uuidOf(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function isRecordedState(v: unknown): v is RecordedState {
  const r = v as RecordedState;
  return !!r && typeof r.rule_id === 'string' && typeof r.key === 'string' && !!r.state && (r.state.status === 'firing' || r.state.status === 'resolved');
}

function isOutboxItem(v: unknown): v is OutboxItem {
  const d = v as OutboxItem;
  return !!d && typeof d.delivery_id === 'string' && typeof d.rule_id === 'string' && typeof d.url === 'string' && typeof d.body === 'string';
}
