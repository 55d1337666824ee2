// The text a failed run ended with, for error signatures (docs/errors.md): run_end's error
// message, else the final step's observation when that step recorded no error of its own and the
// observation reads as a failure (a failing test run, a traceback printed by a command that
// "succeeded"; not a user's "Thank you! ###STOP###" that ends a failed conversation). Errors a
// step or tool call recorded are signed where they happened; this adds the failures only the end
// tells. Pure.

/** What of a step and a tool call the final error looks at (analyze-run.ts StoredStep, StoredToolCall). */
interface StepErrorFields {
  step: number;
  error_message: string;
}
interface CallErrorFields {
  step: number | null;
  status: string;
  error_message: string;
}

export type FinalErrorSource = 'run_end' | 'final_observation';

export interface FinalError {
  source: FinalErrorSource;
  /** The text as recorded, cut at FINAL_ERROR_MAX characters. */
  text: string;
  /** The run's last step (null: a run without steps). */
  step: number | null;
}

/** What is kept of a final text: its template reads the first and last lines only. */
export const FINAL_ERROR_MAX = 4000;

export interface FinalErrorInput {
  /** The run failed (analytics/run-outcome.ts hasFailed of its outcome). */
  failed: boolean;
  /** run_end's error message ('' when none). */
  endError: string;
  steps: readonly StepErrorFields[];
  tool_calls: readonly CallErrorFields[];
  /** The last step's observation as read back ('' or absent when not read). */
  finalObservation?: string;
}

export function finalError(i: FinalErrorInput): FinalError | null {
  if (!i.failed) return null;
  const last = lastStep(i.steps);
  const stepErrors = last === null ? [] : errorsOfStep(last, i.steps, i.tool_calls);
  const endError = i.endError.trim();
  // run_end's error, unless the last step already recorded the same message.
  if (endError !== '') {
    return stepErrors.includes(endError) ? null : { source: 'run_end', text: clip(endError), step: last };
  }
  const observation = (i.finalObservation ?? '').trim();
  if (last === null || stepErrors.length > 0 || !readsAsFailure(observation)) return null;
  return { source: 'final_observation', text: clip(observation), step: last };
}

/**
 * Words by which a program's output says it failed. Looked for in the lines a failure is told in:
 * the first (`Error: ...`) and the last few (a traceback's exception, a test run's summary).
 */
const FAILURE_MARKERS =
  /\b(error|errors|exception|traceback|failed|failure|failures|fatal|panic|panicked|denied|not found|no such file|timed out|timeout|aborted|segmentation fault|exit (code|status) [1-9]\d*|non-zero exit)\b/i;
/** The last lines of an observation looked at, besides its first. */
const LAST_LINES = 5;

/** The observation says it failed (FAILURE_MARKERS in its first line or its last LAST_LINES). */
export function readsAsFailure(observation: string): boolean {
  const lines = observation.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length === 0) return false;
  return [lines[0], ...lines.slice(-LAST_LINES)].some((l) => FAILURE_MARKERS.test(l));
}

/** The highest step number, or null without steps. */
export function lastStep(steps: readonly StepErrorFields[]): number | null {
  let last: number | null = null;
  for (const s of steps) if (last === null || s.step > last) last = s.step;
  return last;
}

function errorsOfStep(step: number, steps: readonly StepErrorFields[], calls: readonly CallErrorFields[]): string[] {
  const out: string[] = [];
  for (const s of steps) if (s.step === step && s.error_message.trim() !== '') out.push(s.error_message.trim());
  for (const c of calls) if (c.step === step && (c.status === 'error' || c.error_message.trim() !== '')) out.push(c.error_message.trim());
  return out;
}

function clip(text: string): string {
  return text.length > FINAL_ERROR_MAX ? text.slice(0, FINAL_ERROR_MAX) : text;
}
