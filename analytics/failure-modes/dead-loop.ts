import type { FailureRule } from './failure-types.js';

/**
 * dead_loop: a loop was detected in the run. The reason names the longest loop by its kind and
 * size, not by step numbers: where it is, the loops' own first_step/last_step say (0-based, as
 * stored), and the dashboard shows them as people count steps (from 1).
 */
export const deadLoop: FailureRule = (facts) => {
  if (facts.loops.length === 0) return null;
  const longest = [...facts.loops].sort((a, b) => b.last_step - b.first_step - (a.last_step - a.first_step))[0];
  const more = facts.loops.length > 1 ? ` (${facts.loops.length} loops in all)` : '';
  return {
    mode: 'dead_loop',
    rule: 'dead_loop',
    reason: `${longest.kind} loop of ${longest.last_step - longest.first_step + 1} steps, ${longest.repetitions} repetitions${more}`,
  };
};
