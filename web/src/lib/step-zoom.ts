// Zooming the per-step chart: the steps of a range (a run of 100,000 steps drawn in bins of 200
// opens to single steps as the range narrows). Pure.
import type { OutlineRow } from './step-outline.js';

/** A zoomed range of stored step numbers, both ends included. */
export interface StepRange {
  from: number;
  to: number;
}

/** The rows (single steps, sorted) within `range`; all of them without one. */
export function rowsInRange(rows: readonly OutlineRow[], range: StepRange | null): readonly OutlineRow[] {
  if (!range) return rows;
  const lo = lowerBound(rows, range.from);
  let hi = lo;
  while (hi < rows.length && rows[hi].step <= range.to) hi++;
  return rows.slice(lo, hi);
}

/**
 * The range a drag across drawn rows (bins) `a` and `b` selects: from the first step of the
 * leftmost to the last step of the rightmost; null when it did not leave its bar (a click).
 */
export function rangeOfDrag(drawn: readonly OutlineRow[], a: number, b: number): StepRange | null {
  if (a === b || !drawn[a] || !drawn[b]) return null;
  const [l, r] = a < b ? [a, b] : [b, a];
  return { from: drawn[l].step, to: drawn[r].last };
}

function lowerBound(rows: readonly OutlineRow[], step: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid].step < step) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
