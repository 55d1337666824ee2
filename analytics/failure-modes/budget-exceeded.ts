import type { FailureRule } from './failure-types.js';

/** budget_exceeded: the run's cost passed its `budget_usd`. */
export const budgetExceeded: FailureRule = (facts) => {
  if (facts.budget_usd === null || !(facts.cost_usd > facts.budget_usd)) return null;
  return {
    mode: 'budget_exceeded',
    rule: 'budget_exceeded',
    reason: `cost $${facts.cost_usd.toFixed(4)} passed the budget of $${facts.budget_usd.toFixed(4)}`,
  };
};
