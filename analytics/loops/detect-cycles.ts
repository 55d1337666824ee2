// Cycle: a block of 2–5 step signatures repeated at least 3 whole times in a row (A B A B A B).
// The block must be primitive (A A or A B A B are a repeat and a shorter cycle); the shortest
// period that qualifies wins. A trailing partial block is not part of the cycle.
import type { SignedStep } from '../signed-step.js';
import { sameStep } from './detect-repeats.js';
import {
  DEFAULT_LOOP_THRESHOLDS,
  withDefaults,
  type Loop,
  type LoopRule,
  type LoopThresholds,
  type StepView,
} from './loop-types.js';
import { scanLoops } from './scan-loops.js';

export function createCycleRule(thresholds: LoopThresholds = DEFAULT_LOOP_THRESHOLDS): LoopRule {
  const { minCyclePeriod: minP, maxCyclePeriod: maxP, minCycleRepetitions: reps } = thresholds;
  // matches[p]: consecutive positions ending here whose step equals the one p positions earlier
  const matches = new Array<number>(maxP + 1).fill(0);
  return {
    kind: 'cycle',
    lookBack: reps * maxP - 1,
    reset() {
      matches.fill(0);
    },
    advance(view, start, position) {
      const current = view.at(position);
      let found: { kind: 'cycle'; first: number; period: number } | null = null;
      for (let p = minP; p <= maxP; p++) {
        matches[p] = position - p >= start && sameStep(current, view.at(position - p)) ? matches[p] + 1 : 0;
        if (!found && matches[p] >= (reps - 1) * p && isPrimitive(view, position - p + 1, p)) {
          found = { kind: 'cycle', first: position - reps * p + 1, period: p };
        }
      }
      return found;
    },
    continues(view, loop, position) {
      return sameStep(view.at(position), view.at(position - loop.period));
    },
    lastPosition(loop, lastContinuing) {
      const whole = Math.floor((lastContinuing - loop.first + 1) / loop.period);
      return loop.first + whole * loop.period - 1;
    },
  };
}

/** True when the block of `p` steps from `from` is not made of a shorter block repeated. */
function isPrimitive(view: StepView, from: number, p: number): boolean {
  for (let d = 1; d < p; d++) {
    if (p % d !== 0) continue;
    let periodic = true;
    for (let i = from + d; i < from + p && periodic; i++) periodic = sameStep(view.at(i), view.at(i - d));
    if (periodic) return false;
  }
  return true;
}

/** Cycles alone (ignoring repeats and stalls), non-overlapping, in step order. */
export function detectCycles(steps: readonly SignedStep[], thresholds: Partial<LoopThresholds> = {}): Loop[] {
  return scanLoops(steps, [createCycleRule(withDefaults(thresholds))]);
}
