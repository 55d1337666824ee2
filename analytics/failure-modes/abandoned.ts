import type { FailureRule } from './failure-types.js';

/** abandoned: no `run_end`, and no event for the configured idle time. */
export const abandoned: FailureRule = (facts, config) => {
  if (facts.status !== null || !isIdle(facts, config.idleTimeoutMs)) return null;
  const minutes = Math.round((facts.now - facts.last_event_ts) / 60_000);
  return { mode: 'abandoned', rule: 'abandoned', reason: `no run_end and no event for ${minutes} min` };
};

export function isIdle(facts: { now: number; last_event_ts: number }, idleTimeoutMs: number): boolean {
  return facts.now - facts.last_event_ts >= idleTimeoutMs;
}
