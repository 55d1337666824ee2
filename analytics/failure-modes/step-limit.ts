import type { FailureRule } from './failure-types.js';

/** step_limit: the run's steps reached its `max_steps`. */
export const stepLimit: FailureRule = (facts) => {
  if (facts.max_steps === null || facts.max_steps <= 0 || facts.steps < facts.max_steps) return null;
  return { mode: 'step_limit', rule: 'step_limit', reason: `${facts.steps} steps reached max_steps ${facts.max_steps}` };
};
