// Live loop detection: steps are fed one at a time and only a bounded window of recent steps is
// kept. A loop is reported (`loop_detected`) by the push of the step that closes it, and again
// (`loop_ended`) with its full extent once a step breaks it or `end()` is called. The
// `loop_ended` loops are exactly those of the batch `detectLoops` over the same steps.
import type { SignedStep } from '../signed-step.js';
import { createLoopRules, longestClosingWindow } from './create-rules.js';
import { withDefaults, type Loop, type LoopRule, type LoopThresholds, type OpenLoop, type StepView } from './loop-types.js';
import { advanceRules, loopRecord, summarizeLoop } from './scan-loops.js';

export type LoopEvent = { type: 'loop_detected'; loop: Loop } | { type: 'loop_ended'; loop: Loop };

interface OpenState {
  rule: LoopRule;
  loop: OpenLoop;
  /** Step index of the first step (its position may have left the window since). */
  firstStep: number;
  /** Last position that extended the loop. */
  last: number;
  tokens: number;
  cost: number;
  /** Sums through the last whole repetition (a cycle ends on one). */
  wholeEnd: number;
  wholeTokens: number;
  wholeCost: number;
}

export class LoopTracker {
  private readonly rules: LoopRule[];
  private readonly window: SignedStep[];
  private readonly view: StepView;
  /** Steps accepted so far; a step's position is its arrival order among accepted steps. */
  private count = 0;
  /** Next position to scan (lags behind `count` only while re-scanning after a loop). */
  private next = 0;
  /** Positions before `start` belong to a loop or were scanned past; rules see only later ones. */
  private start = 0;
  private lastStep = -Infinity;
  private open: OpenState | null = null;

  constructor(thresholds: Partial<LoopThresholds> = {}) {
    const t = withDefaults(thresholds);
    this.rules = createLoopRules(t);
    this.window = new Array<SignedStep>(longestClosingWindow(t) + t.maxCyclePeriod + 1);
    this.view = {
      at: (position) => {
        if (position < this.count - this.window.length || position >= this.count) {
          throw new RangeError(`position ${position} is outside the loop window`);
        }
        return this.window[position % this.window.length];
      },
    };
  }

  /** Steps kept in memory at most. */
  get capacity(): number {
    return this.window.length;
  }

  /** The loop going on now, with its extent so far, or null. */
  get current(): Loop | null {
    const o = this.open;
    return o ? loopRecord(o.loop, o.last, o.firstStep, this.view.at(o.last).step, o.tokens, o.cost) : null;
  }

  /**
   * Feeds the next step of the run. Steps must come in step order; a step whose index is not
   * above the last accepted one (a duplicate or a late arrival) is ignored — the batch analysis
   * of the whole run covers late steps.
   */
  push(step: SignedStep): LoopEvent[] {
    if (!(step.step > this.lastStep)) return [];
    this.lastStep = step.step;
    this.window[this.count % this.window.length] = step;
    this.count++;
    const events: LoopEvent[] = [];
    this.scan(events);
    return events;
  }

  /** The run is over (or evicted): ends the open loop and reports what the rest holds. */
  end(): LoopEvent[] {
    const events: LoopEvent[] = [];
    while (this.open) {
      this.close(events);
      this.scan(events);
    }
    return events;
  }

  private scan(events: LoopEvent[]): void {
    while (this.next < this.count) {
      const position = this.next;
      const open = this.open;
      if (open) {
        if (!open.rule.continues(this.view, open.loop, position)) {
          this.close(events);
          continue;
        }
        this.extend(open, position);
        this.next++;
        continue;
      }
      const found = advanceRules(this.rules, this.view, this.start, position);
      this.next++;
      if (!found) continue;
      const summary = summarizeLoop(this.view, found.loop, position);
      this.open = {
        ...found,
        firstStep: summary.first_step,
        last: position,
        tokens: summary.tokens,
        cost: summary.cost_usd,
        wholeEnd: position,
        wholeTokens: summary.tokens,
        wholeCost: summary.cost_usd,
      };
      events.push({ type: 'loop_detected', loop: summary });
    }
  }

  private extend(open: OpenState, position: number): void {
    const step = this.view.at(position);
    open.last = position;
    open.tokens += step.tokens;
    open.cost += step.cost_usd;
    if ((position - open.loop.first + 1) % open.loop.period === 0) {
      open.wholeEnd = position;
      open.wholeTokens = open.tokens;
      open.wholeCost = open.cost;
    }
  }

  /** Reports the open loop as ended and re-scans the steps after it. */
  private close(events: LoopEvent[]): void {
    const open = this.open;
    if (!open) return;
    const end = open.rule.lastPosition(open.loop, open.last);
    if (end !== open.wholeEnd) throw new Error(`loop end ${end} is not on a whole repetition`);
    const loop = loopRecord(open.loop, end, open.firstStep, this.view.at(end).step, open.wholeTokens, open.wholeCost);
    events.push({ type: 'loop_ended', loop });
    this.open = null;
    this.start = end + 1;
    this.next = this.start;
    for (const rule of this.rules) rule.reset();
  }
}
