// The batch scan shared by all loop rules: left to right, a loop is taken at the first step
// where some rule's threshold is reached (ties: the rule listed first), then extended while its
// pattern goes on; scanning resumes after it, so loops never overlap. O(n · maxCyclePeriod).
import type { SignedStep } from '../signed-step.js';
import type { Loop, LoopRule, OpenLoop, StepView } from './loop-types.js';

export interface Found {
  rule: LoopRule;
  loop: OpenLoop;
}

/** Advances every rule at `position` (each keeps its counters) and returns the first closing. */
export function advanceRules(rules: readonly LoopRule[], view: StepView, start: number, position: number): Found | null {
  let found: Found | null = null;
  for (const rule of rules) {
    const loop = rule.advance(view, start, position);
    if (loop && !found) found = { rule, loop };
  }
  return found;
}

export function scanLoops(steps: readonly SignedStep[], rules: readonly LoopRule[]): Loop[] {
  const view: StepView = { at: (i) => steps[i] };
  const loops: Loop[] = [];
  let start = 0;
  let position = 0;
  for (const rule of rules) rule.reset();
  while (position < steps.length) {
    const found = advanceRules(rules, view, start, position);
    if (!found) {
      position++;
      continue;
    }
    let last = position;
    while (last + 1 < steps.length && found.rule.continues(view, found.loop, last + 1)) last++;
    const end = found.rule.lastPosition(found.loop, last);
    loops.push(summarizeLoop(view, found.loop, end));
    start = end + 1;
    position = start;
    for (const rule of rules) rule.reset();
  }
  return loops;
}

/** The reported loop for positions `loop.first`..`end`, with what its steps spent. */
export function summarizeLoop(view: StepView, loop: OpenLoop, end: number): Loop {
  let tokens = 0;
  let cost = 0;
  for (let i = loop.first; i <= end; i++) {
    tokens += view.at(i).tokens;
    cost += view.at(i).cost_usd;
  }
  return loopRecord(loop, end, view.at(loop.first).step, view.at(end).step, tokens, cost);
}

export function loopRecord(
  loop: OpenLoop,
  end: number,
  firstStep: number,
  lastStep: number,
  tokens: number,
  cost: number,
): Loop {
  const length = end - loop.first + 1;
  return {
    kind: loop.kind,
    first_step: firstStep,
    last_step: lastStep,
    period: loop.period,
    repetitions: length / loop.period,
    tokens,
    cost_usd: cost,
  };
}
