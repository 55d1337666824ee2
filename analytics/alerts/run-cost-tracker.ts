// Running cost and attributes of active runs, from the events of the ingest path, for live
// rules (run_cost_over needs the cost so far; every live rule needs the run's model, agent,
// category and tags for its filters). Memory is bounded: at most `maxRuns` runs (least recently
// active dropped first) and at most `maxStepsPerRun` step indices remembered per run for
// de-duplicating re-sent steps. Pure (no I/O); the caller prices steps.
import type { RunAttributes } from './rule-match.js';

export interface TrackedRun extends RunAttributes {
  cost_usd: number;
  steps: number;
  /** Whether run_start was seen (else the attributes may be incomplete). */
  started: boolean;
  ended: boolean;
}

interface Entry extends TrackedRun {
  seenSteps: Set<number>;
  step_models: string[];
}

export interface TrackerEvent {
  type: string;
  project: string;
  run_id: string;
  step?: number;
  model?: string;
  agent_name?: string;
  agent_version?: string;
  task_category?: string;
  tags?: Record<string, string>;
  budget_usd?: number | null;
}

export class RunCostTracker {
  private readonly runs = new Map<string, Entry>();
  /** Runs dropped to stay within maxRuns. */
  evicted = 0;

  constructor(
    private readonly maxRuns: number,
    private readonly maxStepsPerRun = 10_000,
  ) {}

  get size(): number {
    return this.runs.size;
  }

  get(project: string, runId: string): TrackedRun | undefined {
    return this.runs.get(key(project, runId));
  }

  /**
   * Takes one event; for a step, `stepCost` is its cost (as sent or priced). Returns the run and
   * its cost before the step when a new step arrived, else null.
   */
  add(e: TrackerEvent, stepCost = 0): { run: TrackedRun; before: number } | null {
    const run = this.touch(e.project, e.run_id);
    switch (e.type) {
      case 'run_start':
        run.started = true;
        if (e.model) run.model = e.model;
        run.agent = e.agent_name ?? run.agent;
        run.agent_version = e.agent_version ?? run.agent_version;
        run.task_category = e.task_category ?? run.task_category;
        run.tags = e.tags ?? run.tags;
        run.budget_usd = e.budget_usd ?? run.budget_usd;
        return null;
      case 'run_end':
        run.ended = true;
        return null;
      case 'step': {
        if (e.step === undefined) return null;
        if (run.seenSteps.has(e.step)) return null;
        if (run.seenSteps.size < this.maxStepsPerRun) run.seenSteps.add(e.step);
        if (e.model && !run.step_models.includes(e.model) && run.step_models.length < 8) run.step_models.push(e.model);
        if (!run.model && e.model) run.model = e.model;
        const before = run.cost_usd;
        run.steps++;
        run.cost_usd += Number.isFinite(stepCost) ? stepCost : 0;
        return { run, before };
      }
      default:
        return null;
    }
  }

  private touch(project: string, runId: string): Entry {
    const k = key(project, runId);
    let run = this.runs.get(k);
    if (run) this.runs.delete(k); // re-inserted last: Map order is least recently active first
    else {
      run = {
        project, run_id: runId, model: '', step_models: [], agent: '', task_category: '', tags: {}, budget_usd: null,
        cost_usd: 0, steps: 0, started: false, ended: false, seenSteps: new Set(),
      };
      while (this.runs.size >= this.maxRuns) {
        this.runs.delete(this.runs.keys().next().value as string);
        this.evicted++;
      }
    }
    this.runs.set(k, run);
    return run;
  }
}

function key(project: string, runId: string): string {
  return `${project}\u0000${runId}`;
}

/** A run passes `limit` with this step: its cost was at most the limit before and is above it now. */
export function crosses(before: number, after: number, limit: number): boolean {
  return before <= limit && after > limit;
}

/**
 * The threshold a run_cost_over rule sets for a run: the lower of amount_usd and
 * budget_fraction × the run's budget (null when neither applies to this run).
 */
export function costLimit(p: { amount_usd?: number; budget_fraction?: number }, budgetUsd: number | null | undefined): number | null {
  const limits: number[] = [];
  if (p.amount_usd !== undefined) limits.push(p.amount_usd);
  if (p.budget_fraction !== undefined && budgetUsd != null && budgetUsd > 0) limits.push(p.budget_fraction * budgetUsd);
  return limits.length ? Math.min(...limits) : null;
}
