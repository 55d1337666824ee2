import { describe, expect, it } from 'vitest';
import type { StepRow, Timeseries, ToolCallRow } from '../../schemas/api.js';
import { bucketLabel, groupToolCallsByStep, niceMax, niceTicks, prettyJson, stepAxisTickMarks, stepAxisTicks, stepChartRows, tickLabel, timeseriesRows, timeTicks } from '../../web/src/lib/chart-data.js';
import { isLongText, lineCount, previewText } from '../../web/src/lib/text.js';

function step(n: number, extra: Partial<StepRow> = {}): StepRow {
  return {
    step: n,
    ts: `2026-11-30T09:00:0${n}.000Z`,
    model: 'm',
    input_tokens: 100 * (n + 1),
    output_tokens: 10,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0.01,
    cost_estimated: false,
    latency_ms: 1000,
    action: 'a',
    observation: 'o',
    error_type: '',
    error_message: '',
    truncated: false,
    metadata: {},
    ...extra,
  };
}

function call(id: string, stepNo: number | null, status: 'ok' | 'error', ts = '2026-11-30T09:00:00.000Z'): ToolCallRow {
  return { call_id: id, step: stepNo, ts, tool: 'bash', arguments: '{}', status, error_type: '', error_message: '', duration_ms: 5, output: '', truncated: false };
}

describe('timeseriesRows', () => {
  const ts: Timeseries = {
    from: '2026-11-30T00:00:00.000Z',
    to: '2026-11-30T03:00:00.000Z',
    bucket_seconds: 3600,
    points: [
      { bucket: '2026-11-30T01:00:00.000Z', runs: 4, ended: 3, without_verdict: 0, successes: 2, completion_rate: 2 / 3, cost_usd: 1.5, input_tokens: 100, output_tokens: 20, steps_p50: 5, steps_p90: 9 },
      { bucket: '2026-11-30T00:00:00.000Z', runs: 1, ended: 0, without_verdict: 0, successes: 0, completion_rate: null, cost_usd: 0, input_tokens: 0, output_tokens: 0, steps_p50: null, steps_p90: null },
    ],
  };
  it('orders by time and derives the chart fields', () => {
    const rows = timeseriesRows(ts);
    expect(rows.map((r) => r.from)).toEqual(['2026-11-30T00:00:00.000Z', '2026-11-30T01:00:00.000Z', '2026-11-30T02:00:00.000Z']);
    // 3 ended runs are too few for the line: the rate is drawn apart, as uncertain (chart-uncertainty.unit.test.ts).
    expect(rows[1]).toMatchObject({ to: '2026-11-30T02:00:00.000Z', failures: 1, completion_pct: null, completion_uncertain_pct: 66.7, tokens: 120 });
    expect(rows[0].completion_pct).toBeNull();
    expect(rows[2]).toMatchObject({ runs: 0, cost_usd: 0, completion_pct: null });
  });
  it('keeps the runs ended without a verdict apart from the ended ones (not failures, not in the rate)', () => {
    const rows = timeseriesRows({ ...ts, points: [{ ...ts.points[0], runs: 6, without_verdict: 2 }] });
    const row = rows.find((r) => r.runs === 6)!;
    expect(row).toMatchObject({ ended: 3, without_verdict: 2, successes: 2, failures: 1, completion_uncertain_pct: 66.7 });
    expect(rows.filter((r) => r.runs === 0).every((r) => r.without_verdict === 0)).toBe(true);
  });
  it('fills gaps between points but not across a range too wide to draw', () => {
    const point = (bucket: string) => ({ ...ts.points[0], bucket });
    const gappy: Timeseries = {
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-11-30T00:00:00.000Z',
      bucket_seconds: 3600,
      points: [point('2026-11-29T10:00:00Z'), point('2026-11-29T13:00:00Z')],
    };
    const rows = timeseriesRows(gappy);
    expect(rows.map((r) => r.runs)).toEqual([4, 0, 0, 4]);
    const wide: Timeseries = { ...gappy, points: [point('2026-01-01T00:00:00Z'), point('2026-11-29T13:00:00Z')] };
    expect(timeseriesRows(wide)).toHaveLength(2);
  });
  it('labels hourly buckets with a time and daily buckets with a date', () => {
    const t = Date.parse('2026-11-30T09:00:00Z');
    expect(bucketLabel(t, 3600, 'UTC')).toBe('Nov 30, 09:00');
    expect(bucketLabel(t, 86400, 'UTC')).toBe('Nov 30');
  });
});

describe('timeTicks', () => {
  const HOUR = 3_600_000;
  const series = (from: string, n: number, everyHours: number) => Array.from({ length: n }, (_, i) => Date.parse(from) + i * everyHours * HOUR);
  const iso = (ts: number[]) => ts.map((t) => new Date(t).toISOString().slice(5, 16));

  it('puts a week of 2-hour buckets on midnights, labelled by date', () => {
    const ts = series('2026-11-23T22:00:00Z', 84, 2);
    const r = timeTicks(ts, 7200, 7, 'UTC')!;
    expect(r.stepHours).toBe(24);
    expect(iso(r.ticks)).toEqual(['11-24T00:00', '11-25T00:00', '11-26T00:00', '11-27T00:00', '11-28T00:00', '11-29T00:00', '11-30T00:00']);
    expect(tickLabel(r.ticks[0], 7200, r.stepHours, 'UTC')).toBe('Nov 24');
  });

  it('spaces a day of hourly buckets by round hours, labelled with the time', () => {
    const ts = series('2026-11-29T13:00:00Z', 24, 1);
    const r = timeTicks(ts, 3600, 7, 'UTC')!;
    expect(r.stepHours).toBe(6);
    expect(timeTicks(ts, 3600, 10, 'UTC')!.stepHours).toBe(3);
    expect(iso(r.ticks)).toEqual(['11-29T18:00', '11-30T00:00', '11-30T06:00', '11-30T12:00']);
    expect(tickLabel(r.ticks[1], 3600, r.stepHours, 'UTC')).toBe('Nov 30, 00:00');
  });

  it('uses Mondays for months of daily buckets and never more than `max` ticks', () => {
    const ts = series('2026-10-31T00:00:00Z', 30, 24);
    const r = timeTicks(ts, 86400, 8, 'UTC')!;
    expect(r.stepHours).toBe(168);
    expect(r.ticks.map((t) => new Date(t).getUTCDay())).toEqual([1, 1, 1, 1]);
    for (const max of [2, 3, 5]) expect(timeTicks(ts, 86400, max, 'UTC')?.ticks.length ?? 0).toBeLessThanOrEqual(max);
  });

  it('leaves the choice to the chart when buckets sit off round times', () => {
    expect(timeTicks(series('2026-11-30T00:07:00Z', 5, 1), 3600, 8, 'UTC')).toBeUndefined();
    expect(timeTicks([Date.parse('2026-11-30T00:00:00Z')], 3600, 8, 'UTC')).toBeUndefined();
  });
});

describe('stepAxisTicks', () => {
  const binned = (steps: number, size: number) => Array.from({ length: Math.ceil(steps / size) }, (_, i) => ({ step: i * size, last: Math.min(steps, (i + 1) * size) - 1 }));

  it('ticks round step numbers under the bars that hold them', () => {
    expect(stepAxisTicks(binned(5000, 10))).toEqual([0, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500]);
    expect(stepAxisTicks(binned(37, 1))).toEqual([0, 5, 10, 15, 20, 25, 30, 35]);
  });

  it('names a bin by its first step when a round number falls inside it', () => {
    expect(stepAxisTicks(binned(700, 7), 7)).toEqual([0, 98, 196, 294, 399, 497, 595]);
  });

  it('labels a bin with the round number it holds', () => {
    // Steps as shown from 1 in bins of 200: the bin 9,801–10,000 carries the label 10,000.
    const shown = binned(100_000, 200).map((b) => ({ step: b.step + 1, last: b.last + 1 }));
    const marks = stepAxisTickMarks(shown);
    expect(marks.slice(0, 3)).toEqual([{ at: 9801, label: 10000 }, { at: 19801, label: 20000 }, { at: 29801, label: 30000 }]);
    expect(marks.map((m) => m.at)).toEqual(stepAxisTicks(shown));
  });

  it('skips round numbers in gaps between steps', () => {
    expect(stepAxisTicks([{ step: 0, last: 0 }, { step: 1, last: 1 }, { step: 9, last: 9 }], 5)).toEqual([0]);
    expect(stepAxisTicks([])).toEqual([]);
  });
});

describe('stepChartRows', () => {
  it('sorts steps and marks errors from the step or its tool calls', () => {
    const rows = stepChartRows([step(2), step(0, { error_type: 'ToolError' }), step(1)], [call('c1', 2, 'error'), call('c2', 1, 'ok')]);
    expect(rows.map((r) => [r.step, r.error])).toEqual([
      [0, true],
      [1, false],
      [2, true],
    ]);
    expect(rows[0].tokens).toBe(110);
  });
});

describe('groupToolCallsByStep', () => {
  it('groups by step in time order, with stepless calls under null', () => {
    const g = groupToolCallsByStep([
      call('b', 1, 'ok', '2026-11-30T09:00:02.000Z'),
      call('a', 1, 'ok', '2026-11-30T09:00:01.000Z'),
      call('x', null, 'ok'),
    ]);
    expect(g.get(1)?.map((c) => c.call_id)).toEqual(['a', 'b']);
    expect(g.get(null)?.map((c) => c.call_id)).toEqual(['x']);
  });
});

describe('prettyJson and text helpers', () => {
  it('pretty-prints JSON and leaves other text alone', () => {
    expect(prettyJson('{"cmd":"ls","n":1}')).toBe('{\n  "cmd": "ls",\n  "n": 1\n}');
    expect(prettyJson('ls -la')).toBe('ls -la');
    expect(prettyJson('{broken')).toBe('{broken');
  });
  it('detects and previews long text', () => {
    const text = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    expect(isLongText(text, 8)).toBe(true);
    expect(isLongText('short')).toBe(false);
    expect(isLongText('x'.repeat(801))).toBe(true);
    expect(previewText(text, 3)).toBe('line 0\nline 1\nline 2');
    expect(lineCount(text)).toBe(20);
    expect(lineCount('')).toBe(0);
  });
  it('rounds axis maxima', () => {
    expect(niceMax(0)).toBe(1);
    expect(niceMax(7)).toBe(10);
    expect(niceMax(130)).toBe(200);
    expect(niceMax(0.023)).toBe(0.025);
  });
  it('makes round ticks from zero', () => {
    expect(niceTicks(300_000)).toEqual([0, 100_000, 200_000, 300_000]);
    expect(niceTicks(0.26)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(10)).toEqual([0, 2.5, 5, 7.5, 10]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });
});
