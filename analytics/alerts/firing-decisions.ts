// Deduplication, cooldown and resolution of alerts, per rule and key (a run or a cohort). Pure.
//
// - Event-like kinds (dead_loop, run_cost_over): every observation is a new occurrence; it fires
//   unless the same rule fired for the same key less than the cooldown ago.
// - Condition-like kinds (cost_spike, metric_threshold, completion_rate_drop): an observation
//   says whether the condition holds now. It fires on the change from "not firing" to "holds"
//   (when the cooldown since the last firing has passed), stays quiet while it keeps holding,
//   and, for the kinds that can recover, sends `resolved` once it no longer holds.
//   `unknown` (too few runs to judge) changes nothing.

export interface AlertState {
  status: 'firing' | 'resolved';
  /** Epoch ms of the latest firing (not of a resolution). */
  last_fired_at: number;
  /** Epoch ms of the latest change of status. */
  changed_at: number;
}

export type Observation = 'event' | 'holds' | 'clear' | 'unknown';

export type Decision = { action: 'fire' | 'resolve'; next: AlertState } | { action: 'none'; reason: string };

export function decide(
  prev: AlertState | undefined,
  observation: Observation,
  now: number,
  cooldownMs: number,
  resolves: boolean,
): Decision {
  const cooled = !prev || now - prev.last_fired_at >= cooldownMs;
  switch (observation) {
    case 'event':
      if (!cooled) return { action: 'none', reason: 'cooldown' };
      return { action: 'fire', next: { status: 'firing', last_fired_at: now, changed_at: now } };
    case 'holds':
      if (prev?.status === 'firing') return { action: 'none', reason: 'already firing' };
      if (!cooled) return { action: 'none', reason: 'cooldown' };
      return { action: 'fire', next: { status: 'firing', last_fired_at: now, changed_at: now } };
    case 'clear':
      if (resolves && prev?.status === 'firing') {
        return { action: 'resolve', next: { status: 'resolved', last_fired_at: prev.last_fired_at, changed_at: now } };
      }
      return { action: 'none', reason: 'not firing' };
    case 'unknown':
      return { action: 'none', reason: 'not enough data' };
  }
}
