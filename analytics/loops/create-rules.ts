// The loop rules in priority order: when two close at the same step, the earlier one wins.
import { createCycleRule } from './detect-cycles.js';
import { createRepeatRule } from './detect-repeats.js';
import { createStallRule } from './detect-stalls.js';
import type { LoopRule, LoopThresholds } from './loop-types.js';

export function createLoopRules(thresholds: LoopThresholds): LoopRule[] {
  return [createRepeatRule(thresholds), createCycleRule(thresholds), createStallRule(thresholds)];
}

/** Longest span, in steps, between a closing step and the first step of its loop. */
export function longestClosingWindow(t: LoopThresholds): number {
  return Math.max(t.minRepeats, t.minCycleRepetitions * t.maxCyclePeriod, t.stallSteps, t.stallErrorSteps);
}
