import { firstMatchingError, quote, type FailureRule } from './failure-types.js';

/** environment_error: an error of the sandbox or infrastructure (configurable patterns). */
export const environmentError: FailureRule = (facts, config) => {
  const hit = firstMatchingError(facts.errors, config.environmentPatterns);
  if (!hit) return null;
  return { mode: 'environment_error', rule: 'environment_error', reason: `${hit.error.source} error ${quote(hit.text)}` };
};
