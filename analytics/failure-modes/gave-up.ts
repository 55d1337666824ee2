import type { FailureRule } from './failure-types.js';

/** gave_up: status `failure` and none of the rules before matched. */
export const gaveUp: FailureRule = (facts) =>
  facts.status === 'failure'
    ? { mode: 'gave_up', rule: 'gave_up', reason: 'the run ended with status failure and no other cause was found' }
    : null;
