// Builds RunFacts from a run's normalized events. Pure.
import { extent } from '../robust-stats.js';
import type { RunEndEvent, RunStartEvent, StepEvent, ToolCallEvent } from '../../schemas/normalize-event.js';
import type { Loop } from '../loops/loop-types.js';
import type { RunError, RunFacts } from './failure-types.js';

export interface RunRecords {
  start: Pick<RunStartEvent, 'max_steps' | 'budget_usd' | 'ts'> | null;
  steps: ReadonlyArray<Pick<StepEvent, 'step' | 'error_type' | 'error_message' | 'ts'>>;
  tool_calls: ReadonlyArray<Pick<ToolCallEvent, 'step' | 'status' | 'error_type' | 'error_message' | 'ts'>>;
  end: Pick<RunEndEvent, 'status' | 'failure_mode' | 'reward' | 'tests_passed' | 'tests_failed' | 'error_type' | 'error_message' | 'ts'> | null;
  /** A verifier score, used as the reward when run_end carries none. */
  verifier_score?: number | null;
  /** The verifier's verdict (its `resolved` score), when one arrived. */
  verdict?: number | null;
  /** The run's cost, resolved (as sent, else priced). */
  cost_usd: number;
  loops: readonly Loop[];
  now: number;
}

export function collectRunFacts(run: RunRecords): RunFacts {
  const errors: RunError[] = [];
  const { end } = run;
  if (end && (end.error_type || end.error_message)) {
    errors.push({ source: 'run', type: end.error_type, message: end.error_message });
  }
  const steps = [...run.steps].sort((a, b) => a.step - b.step);
  for (const s of steps) {
    if (s.error_type || s.error_message) errors.push({ source: 'step', type: s.error_type, message: s.error_message });
  }
  const calls = [...run.tool_calls].sort(
    (a, b) => (a.step ?? Number.MAX_SAFE_INTEGER) - (b.step ?? Number.MAX_SAFE_INTEGER) || a.ts - b.ts,
  );
  for (const c of calls) {
    if (c.status === 'error' || c.error_type || c.error_message) {
      errors.push({ source: 'tool', type: c.error_type, message: c.error_message });
    }
  }
  const times = [run.start?.ts, end?.ts, ...run.steps.map((s) => s.ts), ...run.tool_calls.map((c) => c.ts)];
  return {
    status: end?.status ?? null,
    failure_mode: end?.failure_mode ?? '',
    steps: new Set(run.steps.map((s) => s.step)).size,
    max_steps: run.start?.max_steps ?? null,
    errors,
    tool_call_statuses: calls.map((c) => c.status),
    cost_usd: run.cost_usd,
    budget_usd: run.start?.budget_usd ?? null,
    tests_passed: end?.tests_passed ?? null,
    tests_failed: end?.tests_failed ?? null,
    reward: end?.reward ?? run.verifier_score ?? null,
    verdict: run.verdict ?? null,
    loops: run.loops,
    last_event_ts: extent(times.filter((t): t is number => typeof t === 'number'))[1],
    now: run.now,
  };
}
