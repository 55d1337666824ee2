// Stall: consecutive steps that get the same observation signature although the actions differ
// (not all the same): at least `stallErrorSteps` (4) when the observation is an error, else at
// least `stallSteps` (8). The stall goes on while the observation stays the same.
import type { SignedStep } from '../signed-step.js';
import { DEFAULT_LOOP_THRESHOLDS, withDefaults, type Loop, type LoopRule, type LoopThresholds } from './loop-types.js';
import { scanLoops } from './scan-loops.js';

export function createStallRule(thresholds: LoopThresholds = DEFAULT_LOOP_THRESHOLDS): LoopRule {
  let sameObservation = 0; // run of equal observations ending here, since the scan start
  let sameAction = 0; // run of equal actions ending here, since the scan start
  return {
    kind: 'stall',
    lookBack: Math.max(thresholds.stallErrorSteps, thresholds.stallSteps) - 1,
    reset() {
      sameObservation = 0;
      sameAction = 0;
    },
    advance(view, start, position) {
      const current = view.at(position);
      const previous = position > start ? view.at(position - 1) : null;
      sameObservation = previous && previous.observation === current.observation ? sameObservation + 1 : 1;
      sameAction = previous && previous.action === current.action ? sameAction + 1 : 1;
      const need = current.error ? thresholds.stallErrorSteps : thresholds.stallSteps;
      // sameAction < need: the actions inside the window are not all the same
      return sameObservation >= need && sameAction < need
        ? { kind: 'stall', first: position - need + 1, period: 1 }
        : null;
    },
    continues(view, _loop, position) {
      return view.at(position).observation === view.at(position - 1).observation;
    },
    lastPosition(_loop, lastContinuing) {
      return lastContinuing;
    },
  };
}

/** Stalls alone (ignoring repeats and cycles), non-overlapping, in step order. */
export function detectStalls(steps: readonly SignedStep[], thresholds: Partial<LoopThresholds> = {}): Loop[] {
  return scanLoops(steps, [createStallRule(withDefaults(thresholds))]);
}
