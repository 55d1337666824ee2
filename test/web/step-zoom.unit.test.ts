// Zooming the per-step chart (web/src/lib/step-zoom.ts) of a long run: a drag across bins selects
// their steps, which bin again into finer bars, down to single steps; a click is not a drag.
import { describe, expect, it } from 'vitest';
import { binRows, type OutlineRow } from '../../web/src/lib/step-outline.js';
import { rangeOfDrag, rowsInRange } from '../../web/src/lib/step-zoom.js';

const rows: OutlineRow[] = Array.from({ length: 100_000 }, (_, step) => ({
  step, last: step, input_tokens: 1, output_tokens: 1, tokens: 2, cost_usd: 0.001, errors: step % 97 === 96 ? 1 : 0, error: step % 97 === 96,
}));

describe('step chart zoom', () => {
  it('narrows 100,000 steps in bins of 200 to single steps in two drags, errors still marked', () => {
    const all = binRows(rows, 500);
    expect(all).toHaveLength(500);
    expect(all[0].last - all[0].step + 1).toBe(200);
    // Drag from bin 10 to bin 12 (either way): steps 2,000–2,599.
    const range = rangeOfDrag(all, 12, 10)!;
    expect(range).toEqual({ from: 2000, to: 2599 });
    const zoomed = binRows([...rowsInRange(rows, range)], 500);
    expect(zoomed[0].step).toBe(2000);
    expect(zoomed[zoomed.length - 1].last).toBe(2599);
    expect(zoomed.length).toBeGreaterThan(250);
    const second = rangeOfDrag(zoomed, 0, 20)!;
    const fine = binRows([...rowsInRange(rows, second)], 500);
    expect(fine.every((r) => r.step === r.last)).toBe(true);
    // Every error step in the range is still a red bar.
    expect(fine.filter((r) => r.error).map((r) => r.step)).toEqual(fine.map((r) => r.step).filter((s) => s % 97 === 96));
  });
  it('treats a press and release on one bar as a click, and keeps gaps between steps', () => {
    expect(rangeOfDrag(binRows(rows, 500), 3, 3)).toBeNull();
    const gappy = rows.filter((r) => r.step % 2 === 0).slice(0, 10);
    expect(rowsInRange(gappy, { from: 3, to: 9 }).map((r) => r.step)).toEqual([4, 6, 8]);
    expect(rowsInRange(gappy, null)).toBe(gappy);
  });
});
