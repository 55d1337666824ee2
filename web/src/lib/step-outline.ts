// Pure shaping for the trajectory viewer: the step outline (GET …/steps/index) as chart rows,
// binned when a run has more steps than a chart can draw, loops per step, step windows, and
// the step a link points at (?step=N or #step-N).
import type { LoopInfo, StepIndex } from '../../../schemas/api.js';

/** Steps per window of full steps the viewer fetches (GET /runs/:id/steps?offset=&limit=). */
export const STEP_WINDOW = 100;

export interface OutlineRow {
  step: number;
  /** Last step folded into this row (== step unless binned). */
  last: number;
  input_tokens: number;
  output_tokens: number;
  tokens: number;
  cost_usd: number;
  /** Steps in this row with an error. */
  errors: number;
  error: boolean;
}

/** One row per step, in step order. */
export function outlineRows(ix: StepIndex): OutlineRow[] {
  return ix.step.map((step, i) => {
    const input = ix.input_tokens[i] ?? 0;
    const output = ix.output_tokens[i] ?? 0;
    const err = ix.error[i] === 1;
    return { step, last: step, input_tokens: input, output_tokens: output, tokens: input + output, cost_usd: ix.cost_usd[i] ?? 0, errors: err ? 1 : 0, error: err };
  });
}

/**
 * At most `maxBins` rows: consecutive steps folded together (tokens and cost summed, errors
 * counted), so a 5,000-step run draws 500 bars instead of 5,000.
 */
export function binRows(rows: OutlineRow[], maxBins: number): OutlineRow[] {
  if (rows.length <= maxBins) return rows;
  const size = Math.ceil(rows.length / maxBins);
  const out: OutlineRow[] = [];
  for (let i = 0; i < rows.length; i += size) {
    const part = rows.slice(i, i + size);
    const b: OutlineRow = { step: part[0].step, last: part[part.length - 1].step, input_tokens: 0, output_tokens: 0, tokens: 0, cost_usd: 0, errors: 0, error: false };
    for (const r of part) {
      b.input_tokens += r.input_tokens;
      b.output_tokens += r.output_tokens;
      b.tokens += r.tokens;
      b.cost_usd += r.cost_usd;
      b.errors += r.errors;
    }
    b.error = b.errors > 0;
    out.push(b);
  }
  return out;
}

/** The loop (index into `loops`) each step belongs to; the first loop wins where loops overlap. */
export function loopOfStep(loops: readonly LoopInfo[]): Map<number, number> {
  const out = new Map<number, number>();
  loops.forEach((l, i) => {
    for (let s = l.first_step; s <= l.last_step; s++) if (!out.has(s)) out.set(s, i);
  });
  return out;
}

/** Position of `step` in the sorted step list, or -1. */
export function positionOfStep(steps: readonly number[], step: number): number {
  let lo = 0;
  let hi = steps.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (steps[mid] === step) return mid;
    if (steps[mid] < step) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Window numbers (position / size) covering positions `from`…`to`. */
export function windowsFor(from: number, to: number, size: number): number[] {
  if (to < from || size <= 0) return [];
  const out: number[] = [];
  for (let w = Math.floor(Math.max(0, from) / size); w <= Math.floor(to / size); w++) out.push(w);
  return out;
}

/** The step a link asks for: `?step=N`, else a `#step-N` hash; null when neither is a step number. */
export function stepTarget(search: string, hash: string): number | null {
  const q = new URLSearchParams(search).get('step');
  if (q !== null && /^\d+$/.test(q.trim())) return Number(q.trim());
  const m = /^#step-(\d+)$/.exec(hash);
  return m ? Number(m[1]) : null;
}

/** The thought of a step, when the agent sent one (kept in metadata: `thought` or `reasoning`). */
export function stepThought(metadata: Record<string, unknown>): string {
  for (const k of ['thought', 'reasoning', 'thinking']) {
    const v = metadata[k];
    if (typeof v === 'string' && v.trim()) return v;
  }
  return '';
}
