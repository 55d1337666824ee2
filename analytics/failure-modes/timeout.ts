import type { FailureRule } from './failure-types.js';

/** timeout: the run ended with status `timeout`. */
export const timeout: FailureRule = (facts) =>
  facts.status === 'timeout' ? { mode: 'timeout', rule: 'timeout', reason: 'the run ended with status timeout' } : null;
