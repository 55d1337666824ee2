// Repeat: the same step signature (action and observation) at least `minRepeats` times in a row.
import type { SignedStep } from '../signed-step.js';
import { DEFAULT_LOOP_THRESHOLDS, withDefaults, type Loop, type LoopRule, type LoopThresholds } from './loop-types.js';
import { scanLoops } from './scan-loops.js';

/** Equal step signatures: the same action and the same observation. */
export function sameStep(a: SignedStep, b: SignedStep): boolean {
  return a.action === b.action && a.observation === b.observation;
}

export function createRepeatRule(thresholds: LoopThresholds = DEFAULT_LOOP_THRESHOLDS): LoopRule {
  const need = thresholds.minRepeats;
  let run = 0; // identical step signatures ending at the current position, since the scan start
  return {
    kind: 'repeat',
    lookBack: need - 1,
    reset() {
      run = 0;
    },
    advance(view, start, position) {
      run = position > start && sameStep(view.at(position), view.at(position - 1)) ? run + 1 : 1;
      return run >= need ? { kind: 'repeat', first: position - need + 1, period: 1 } : null;
    },
    continues(view, _loop, position) {
      return sameStep(view.at(position), view.at(position - 1));
    },
    lastPosition(_loop, lastContinuing) {
      return lastContinuing;
    },
  };
}

/** Repeats alone (ignoring cycles and stalls), non-overlapping, in step order. */
export function detectRepeats(steps: readonly SignedStep[], thresholds: Partial<LoopThresholds> = {}): Loop[] {
  return scanLoops(steps, [createRepeatRule(withDefaults(thresholds))]);
}
