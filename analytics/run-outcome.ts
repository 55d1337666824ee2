// A run's outcome from how it ended and the verifier's verdict (docs/analyses.md "Run lifecycle"
// and "Verdicts"; docs/sending-events.md "Verdicts"). The rule that the summary SQL
// (storage/queries/run-lifecycle-sql.ts) and the run analyzer both apply. Pure.
import { VERDICT_SCORE, type RunStatus } from '../schemas/events.js';

/** How a run stands before its verdict: run_end's status, `abandoned` (idle, no run_end), or `running`. */
export type EndState = RunStatus | 'abandoned' | 'running';

/** The verifier's `resolved` score says the task is solved. */
export function isSolved(verdict: number): boolean {
  return verdict >= VERDICT_SCORE.solvedFrom;
}

/**
 * The run's status once its verdict (the verifier's `resolved` score, null when none) is taken
 * into account. A run still going stays `running`; without a verdict the end stands (`submitted`
 * stays: ended, without a verdict). A verdict of solved makes any ended run a success; one of not
 * solved makes a run that claimed to be done (`submitted`, `success`) a failure and leaves any
 * other end (failure, error, timeout, cancelled, abandoned: it failed either way) as it was.
 */
export function runOutcome(end: EndState, verdict: number | null): EndState {
  if (end === 'running' || verdict === null) return end;
  if (isSolved(verdict)) return 'success';
  return end === 'submitted' || end === 'success' ? 'failure' : end;
}

/** Statuses of runs that ended with a verdict: success, or a failure of some kind (the denominators of every rate). */
export function hasVerdict(status: EndState): status is Exclude<EndState, 'running' | 'submitted'> {
  return status !== 'running' && status !== 'submitted';
}

/** The run failed: it ended (or was abandoned) with an outcome other than success, the TypeScript twin of FAILED_SQL. */
export function hasFailed(status: EndState): boolean {
  return hasVerdict(status) && status !== 'success';
}
