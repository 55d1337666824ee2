import { firstMatchingError, quote, type FailureRule } from './failure-types.js';

/** context_overflow: an error says the context window or maximum length was exceeded. */
export const contextOverflow: FailureRule = (facts, config) => {
  const hit = firstMatchingError(facts.errors, config.contextOverflowPatterns);
  if (!hit) return null;
  return { mode: 'context_overflow', rule: 'context_overflow', reason: `${hit.error.source} error ${quote(hit.text)}` };
};
