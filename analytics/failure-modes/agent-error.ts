import { quote, type FailureRule } from './failure-types.js';

/** agent_error: status `error` and none of the rules before matched. */
export const agentError: FailureRule = (facts) => {
  if (facts.status !== 'error') return null;
  const runError = facts.errors.find((e) => e.source === 'run');
  const detail = runError ? `: ${quote([runError.type, runError.message].filter(Boolean).join(': '))}` : '';
  return { mode: 'agent_error', rule: 'agent_error', reason: `the run ended with status error${detail}` };
};
