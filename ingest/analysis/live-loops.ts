// Live dead-loop detection (DESIGN.md "Dead loop": detected live while the run is going): a
// bounded LoopTracker window per active run, fed with the steps of ingested events. Steps are
// signed a moment after they arrive (so the tool calls sent with them are included) and a
// `loop_detected` signal is recorded as soon as the step that closes a loop is fed. Memory is
// bounded: at most `maxRuns` runs are tracked (least recently active dropped first), runs idle
// for `idleMs` are dropped, and a run_end drops its run. Out-of-order and late steps are left
// to the run analyzer, which reads the whole run back.
import { LoopTracker, type Loop, type LoopThresholds } from '../../analytics/loops/index.js';
import { callPartsAt, signStep, stepPartsAt, type EventParts, type StepInput, type StepParts, type ToolCallInput } from '../../analytics/signed-step.js';
import type { StepEvent, TrajEvent } from '../../schemas/normalize-event.js';

export interface LiveLoopOptions {
  thresholds?: Partial<LoopThresholds>;
  maxRuns: number;
  idleMs: number;
  /** Wait after a run's latest event before feeding its new steps (tool calls sent along join). */
  settleMs?: number;
  /** Cost of a step that carries no cost_usd (the model price table). */
  costOf?: (step: StepEvent) => number | null;
  /** Stores signals (the `signals` table). */
  record: (signals: LoopSignal[]) => Promise<void>;
  onError?: (err: unknown) => void;
  clock?: () => number;
}

export interface LoopSignal {
  project: string;
  kind: 'loop_detected';
  run_id: string;
  /** Deterministic: a re-detection of the same loop replaces the row. */
  signal_id: string;
  ts: number;
  step: number;
  details: string;
}

interface LiveRun {
  project: string;
  run_id: string;
  tracker: LoopTracker;
  /** Steps waiting to be signed, as little of each as signing needs (they live a while). */
  pendingSteps: Map<number, StepInput>;
  pendingCalls: Map<number, ToolCallInput[]>;
  lastSeen: number;
}

/** Pending steps and calls kept per run at most (a flood of out-of-order events stays bounded). */
const MAX_PENDING = 256;

export class LiveLoopDetector {
  private readonly runs = new Map<string, LiveRun>();
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly clock: () => number;
  private recording: Promise<void> = Promise.resolve();
  /** Signals recorded since start, and runs dropped to stay within maxRuns. */
  readonly stats = { signals: 0, evicted: 0, idleDropped: 0 };

  constructor(private readonly opts: LiveLoopOptions) {
    this.clock = opts.clock ?? Date.now;
    this.sweepTimer = setInterval(() => this.dropIdle(), Math.max(1000, Math.floor(opts.idleMs / 4)));
    this.sweepTimer.unref();
  }

  /** Runs tracked now. */
  get size(): number {
    return this.runs.size;
  }

  /** Takes ingested events; `parts` are their signature parts (eventParts), worked out when not given. */
  notify(events: readonly TrajEvent[], parts?: EventParts): void {
    const now = this.clock();
    // A run's events mostly come one after another: the previous event's run serves (already
    // touched, so already the most recently active).
    let lastKey = '';
    let lastRun: LiveRun | null = null;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (e.type !== 'step' && e.type !== 'tool_call' && e.type !== 'run_end') continue;
      const same: boolean = lastRun !== null && lastRun.run_id === e.run_id && lastRun.project === e.project;
      const key: string = same ? lastKey : `${e.project}\u0000${e.run_id}`;
      if (e.type === 'run_end') {
        this.runs.delete(key);
        this.dirty.delete(key);
        lastRun = null;
        continue;
      }
      const run: LiveRun = same ? lastRun! : this.touch(key, e.project, e.run_id, now);
      if (!same) {
        this.dirty.add(key);
        lastKey = key;
        lastRun = run;
      }
      if (e.type === 'step') {
        if (run.pendingSteps.size < MAX_PENDING && !run.pendingSteps.has(e.step)) run.pendingSteps.set(e.step, this.pendingStep(e, stepPartsAt(parts, i, e)));
      } else if (e.step !== null) {
        // What signing needs, in a small object of one shape (texts for a step of several calls).
        const call: ToolCallInput = { step: e.step, tool: e.tool, arguments: e.arguments, status: e.status, output: e.output, parts: callPartsAt(parts, i, e) };
        const calls = run.pendingCalls.get(e.step);
        if (calls) calls.push(call);
        else if (run.pendingCalls.size < MAX_PENDING) run.pendingCalls.set(e.step, [call]);
      }
    }
    if (this.dirty.size && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.feed();
      }, this.opts.settleMs ?? 250);
      this.timer.unref();
    }
  }

  /** Feeds every pending step now and resolves once the resulting signals are stored. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.feed();
    await this.recording;
  }

  async close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.flush();
    this.runs.clear();
  }

  /** Drops runs with no event for idleMs. */
  dropIdle(): void {
    const before = this.clock() - this.opts.idleMs;
    for (const [key, run] of this.runs) {
      // The map is in order of last activity: the first recent one ends the scan.
      if (run.lastSeen >= before) break;
      this.runs.delete(key);
      this.dirty.delete(key);
      this.stats.idleDropped++;
    }
  }

  /**
   * What signing needs of a step: its signature parts stand for its texts (so the event and its
   * action and observation are let go: a step waits settleMs here, through several young-generation
   * collections, and all it held would be copied at each), its cost priced now when not sent.
   */
  private pendingStep(e: StepEvent, parts: StepParts): StepInput {
    return {
      step: e.step,
      action: '',
      observation: '',
      error_type: e.error_type,
      error_message: e.error_message,
      input_tokens: e.input_tokens,
      output_tokens: e.output_tokens,
      cost_usd: e.cost_usd ?? this.opts.costOf?.(e) ?? null,
      parts,
    };
  }

  private touch(key: string, project: string, run_id: string, now: number): LiveRun {
    let run = this.runs.get(key);
    if (run) this.runs.delete(key); // re-inserted last: Map order is least recently active first
    else {
      run = { project, run_id, tracker: new LoopTracker(this.opts.thresholds), pendingSteps: new Map(), pendingCalls: new Map(), lastSeen: now };
      while (this.runs.size >= this.opts.maxRuns) {
        const oldest = this.runs.keys().next().value as string;
        this.runs.delete(oldest);
        this.dirty.delete(oldest);
        this.stats.evicted++;
      }
    }
    run.lastSeen = now;
    this.runs.set(key, run);
    return run;
  }

  private feed(): void {
    const signals: LoopSignal[] = [];
    const now = this.clock();
    for (const key of this.dirty) {
      const run = this.runs.get(key);
      if (!run || run.pendingSteps.size === 0) continue;
      const steps = [...run.pendingSteps.values()].sort((a, b) => a.step - b.step);
      for (const step of steps) {
        const calls = run.pendingCalls.get(step.step) ?? [];
        run.pendingCalls.delete(step.step);
        const signed = signStep(step, calls);
        for (const ev of run.tracker.push(signed)) {
          if (ev.type === 'loop_detected') signals.push(toSignal(run, ev.loop, now));
        }
      }
      run.pendingSteps.clear();
      // Calls of steps already fed can no longer change a signature.
      if (run.pendingCalls.size > MAX_PENDING / 2) run.pendingCalls.clear();
    }
    this.dirty.clear();
    if (signals.length === 0) return;
    this.stats.signals += signals.length;
    this.recording = this.recording
      .then(() => this.opts.record(signals))
      .catch((err) => this.opts.onError?.(err));
  }
}

function toSignal(run: LiveRun, loop: Loop, now: number): LoopSignal {
  return {
    project: run.project,
    kind: 'loop_detected',
    run_id: run.run_id,
    signal_id: `loop/${loop.kind}/${loop.first_step}`,
    ts: now,
    step: loop.last_step,
    details: JSON.stringify(loop),
  };
}
