// Pure shaping of the overview (previous period, changes, failure-mode chart) and the
// trajectory viewer (outline rows, bins, loops, windows, step links).
import { describe, expect, it } from 'vitest';
import type { FailuresReport, StepIndex } from '../../schemas/api.js';
import { parseFilters } from '../../web/src/lib/filters.js';
import { failureModeRows, OTHER_MODES } from '../../web/src/lib/overview-data.js';
import { change, describeChange, previousPeriod } from '../../web/src/lib/period.js';
import { binRows, loopOfStep, outlineRows, positionOfStep, stepTarget, stepThought, windowsFor } from '../../web/src/lib/step-outline.js';

const now = new Date('2026-11-30T12:00:00Z');

describe('previousPeriod', () => {
  it('is the window of the same length just before a preset range', () => {
    const p = previousPeriod(parseFilters(new URLSearchParams('range=24h&model=m')), now)!;
    expect(p.range).toBe('custom');
    expect(p.from).toBe('2026-11-28T12:00:00.000Z');
    expect(p.to).toBe('2026-11-29T12:00:00.000Z');
    expect(p.dims.model).toBe('m');
  });
  it('shifts a custom range back by its length, and has none for all time', () => {
    const p = previousPeriod(parseFilters(new URLSearchParams('from=2026-11-10T00:00:00Z&to=2026-11-12T00:00:00Z')), now)!;
    expect([p.from, p.to]).toEqual(['2026-11-08T00:00:00.000Z', '2026-11-10T00:00:00.000Z']);
    expect(previousPeriod(parseFilters(new URLSearchParams('range=all')), now)).toBeNull();
  });
});

describe('change and describeChange', () => {
  it('gives relative changes for counts and point changes for rates, with a tone', () => {
    expect(describeChange(change(120, 100), { higherIsBetter: true })).toEqual({ text: '+20%', tone: 'good' });
    expect(describeChange(change(120, 100), { higherIsBetter: false })).toEqual({ text: '+20%', tone: 'bad' });
    expect(describeChange(change(0.62, 0.65), { rate: true, higherIsBetter: true })).toEqual({ text: '−3.0 pp', tone: 'bad' });
    expect(describeChange(change(5, 5), {})).toEqual({ text: '±0.0%', tone: 'neutral' });
    expect(describeChange(change(5, 0), {})).toBeNull();
    expect(describeChange(change(null, 3), {})).toBeNull();
  });
});

describe('failureModeRows', () => {
  const report: FailuresReport = {
    runs: 10,
    failed: 7,
    without_verdict: 0,
    modes: ['a', 'b', 'c'].map((mode, i) => ({ mode, runs: 3 - i, share: 0, rules: [], examples: [] })),
    over_time: {
      bucket_seconds: 3600,
      points: [
        { bucket: '2026-11-30T11:00:00.000Z', counts: { c: 1 } },
        { bucket: '2026-11-30T10:00:00.000Z', counts: { a: 3, b: 1 } },
      ],
    },
    by: 'model',
    by_dimension: [],
    comparison: null,
  };
  it('stacks the top modes per bucket in time order and folds the rest into other', () => {
    const { rows, modes } = failureModeRows(report, 2);
    expect(modes).toEqual(['a', 'b', OTHER_MODES]);
    expect(rows.map((r) => [r.from, r.to, r.a, r.b, r[OTHER_MODES]])).toEqual([
      ['2026-11-30T10:00:00.000Z', '2026-11-30T11:00:00.000Z', 3, 1, 0],
      ['2026-11-30T11:00:00.000Z', '2026-11-30T12:00:00.000Z', 0, 0, 1],
    ]);
    expect(failureModeRows(report).modes).toEqual(['a', 'b', 'c']);
  });
});

const index: StepIndex = {
  project: 'p',
  run_id: 'r',
  step: [0, 1, 2, 3, 5],
  input_tokens: [10, 20, 30, 40, 50],
  output_tokens: [1, 2, 3, 4, 5],
  cost_usd: [0.1, 0.2, 0.3, 0.4, 0.5],
  latency_ms: [1, 2, 3, null, 5],
  tool_calls: [1, 1, 0, 0, 2],
  tools: ['', 'bash', 'edit'],
  tool: [1, 2, 0, 0, 1],
  error: [0, 1, 0, 0, 1],
};

describe('step outline', () => {
  it('turns the index into rows and bins them, summing tokens and counting errors', () => {
    const rows = outlineRows(index);
    expect(rows[1]).toEqual({ step: 1, last: 1, input_tokens: 20, output_tokens: 2, tokens: 22, cost_usd: 0.2, errors: 1, error: true });
    expect(binRows(rows, 10)).toBe(rows);
    const bins = binRows(rows, 2);
    expect(bins.map((b) => [b.step, b.last, b.tokens, b.errors])).toEqual([
      [0, 2, 66, 1],
      [3, 5, 99, 1],
    ]);
    expect(bins[0].cost_usd).toBeCloseTo(0.6);
  });

  it('maps steps to their loop, finds positions, windows and link targets', () => {
    const loops = [
      { kind: 'repeat' as const, first_step: 2, last_step: 4, period: 1, repetitions: 3, tokens: 0, cost_usd: 0 },
      { kind: 'cycle' as const, first_step: 4, last_step: 6, period: 2, repetitions: 3, tokens: 0, cost_usd: 0 },
    ];
    const m = loopOfStep(loops);
    expect([m.get(1), m.get(2), m.get(4), m.get(6)]).toEqual([undefined, 0, 0, 1]);
    expect([positionOfStep(index.step, 5), positionOfStep(index.step, 4), positionOfStep(index.step, 0)]).toEqual([4, -1, 0]);
    expect(windowsFor(95, 230, 100)).toEqual([0, 1, 2]);
    expect(windowsFor(5, 4, 100)).toEqual([]);
    expect(stepTarget('?project=x&step=42', '')).toBe(42);
    expect(stepTarget('', '#step-7')).toBe(7);
    expect(stepTarget('?step=abc', '#top')).toBeNull();
    expect(stepThought({ thought: 'check the tests' })).toBe('check the tests');
    expect(stepThought({ other: 1, reasoning: 42 })).toBe('');
  });
});
