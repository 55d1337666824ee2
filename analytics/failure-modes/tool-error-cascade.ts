import type { FailureRule } from './failure-types.js';

/** tool_error_cascade: the last 3 (configurable) or more tool calls of the run failed. */
export const toolErrorCascade: FailureRule = (facts, config) => {
  const statuses = facts.tool_call_statuses;
  let failedAtEnd = 0;
  while (failedAtEnd < statuses.length && statuses[statuses.length - 1 - failedAtEnd] === 'error') failedAtEnd++;
  if (failedAtEnd < config.toolErrorCascade) return null;
  return {
    mode: 'tool_error_cascade',
    rule: 'tool_error_cascade',
    reason: `the last ${failedAtEnd} tool calls failed`,
  };
};
