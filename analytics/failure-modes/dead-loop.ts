import type { FailureRule } from './failure-types.js';

/** dead_loop: a loop was detected in the run. */
export const deadLoop: FailureRule = (facts) => {
  if (facts.loops.length === 0) return null;
  const longest = [...facts.loops].sort((a, b) => b.last_step - b.first_step - (a.last_step - a.first_step))[0];
  const more = facts.loops.length > 1 ? ` (${facts.loops.length} loops in all)` : '';
  return {
    mode: 'dead_loop',
    rule: 'dead_loop',
    reason: `${longest.kind} loop over steps ${longest.first_step}–${longest.last_step}${more}`,
  };
};
