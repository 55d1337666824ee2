// Shapes API responses into rows recharts can draw. Pure.
import type { StepRow, Timeseries, ToolCallRow } from '../../../schemas/api.js';
import { wilsonInterval } from '../../../analytics/robust-stats.js';
import { dateFormat } from './format.js';

/**
 * Fewest ended runs in a bucket for its completion rate to be drawn on the line; smaller buckets
 * are drawn as hollow, faded points (their 95% interval is wide) and say so in the tooltip.
 */
export const MIN_CERTAIN_ENDED = 10;

export interface TimeseriesChartRow {
  /** Bucket start, epoch ms (x value). */
  t: number;
  /** Bucket start and end (ISO), for click-through to the runs of that bucket. */
  from: string;
  to: string;
  runs: number;
  /** Runs that ended with a verdict (the completion rate's denominator). */
  ended: number;
  /** Runs that ended without a verdict (in no rate). */
  without_verdict: number;
  successes: number;
  failures: number;
  /** Completion rate in percent (0–100), null when nothing ended in the bucket. */
  completion_pct: number | null;
  /** The Wilson 95% interval of the completion rate (fractions), null when nothing ended. */
  completion_ci: { low: number; high: number } | null;
  /** The rate of buckets with fewer than MIN_CERTAIN_ENDED ended runs (drawn apart); else null. */
  completion_uncertain_pct: number | null;
  cost_usd: number;
  tokens: number;
  steps_p50: number | null;
  steps_p90: number | null;
}

/** Most buckets the charts fill with zeros; beyond this, only buckets with data are drawn. */
export const MAX_FILLED_BUCKETS = 400;

/**
 * Rows of the overview charts, one per bucket, ordered by time. The API returns only buckets
 * that hold runs; empty buckets between them (or across the asked range, when it is small
 * enough) are filled with zeros so gaps in traffic show as gaps.
 */
export function timeseriesRows(ts: Timeseries): TimeseriesChartRow[] {
  const width = Math.max(1, ts.bucket_seconds) * 1000;
  const rows = ts.points
    .map((p) => {
      const t = new Date(p.bucket).getTime();
      return {
        t,
        from: new Date(t).toISOString(),
        to: new Date(t + width).toISOString(),
        runs: p.runs,
        ended: p.ended,
        without_verdict: p.without_verdict ?? 0,
        successes: p.successes,
        failures: Math.max(0, p.ended - p.successes),
        ...completion(p.successes, p.ended),
        cost_usd: p.cost_usd,
        tokens: p.input_tokens + p.output_tokens,
        steps_p50: p.steps_p50,
        steps_p90: p.steps_p90,
      };
    })
    .filter((r) => Number.isFinite(r.t))
    .sort((a, b) => a.t - b.t);
  if (rows.length === 0) return rows;

  const first = rows[0].t;
  const last = rows[rows.length - 1].t;
  // Align the asked range to the bucket grid of the points.
  const align = (ms: number) => first + Math.floor((ms - first) / width) * width;
  const askedFrom = ts.from ? align(new Date(ts.from).getTime()) : NaN;
  const askedTo = ts.to ? align(new Date(ts.to).getTime() - 1) : NaN;
  let start = first;
  let end = last;
  if (Number.isFinite(askedFrom) && Number.isFinite(askedTo) && (askedTo - askedFrom) / width < MAX_FILLED_BUCKETS) {
    start = Math.min(first, askedFrom);
    end = Math.max(last, askedTo);
  }
  if ((end - start) / width >= MAX_FILLED_BUCKETS) return rows;

  const byT = new Map(rows.map((r) => [r.t, r]));
  const filled: TimeseriesChartRow[] = [];
  for (let t = start; t <= end; t += width) {
    filled.push(
      byT.get(t) ?? {
        t,
        from: new Date(t).toISOString(),
        to: new Date(t + width).toISOString(),
        runs: 0,
        ended: 0,
        without_verdict: 0,
        successes: 0,
        failures: 0,
        completion_pct: null,
        completion_ci: null,
        completion_uncertain_pct: null,
        cost_usd: 0,
        tokens: 0,
        steps_p50: null,
        steps_p90: null,
      },
    );
  }
  // Points off the bucket grid (should not happen) would be lost by filling: keep them as they are.
  if (rows.some((r) => (r.t - start) % width !== 0)) return rows;
  return filled;
}

/**
 * A bucket's completion rate: on the line when enough runs ended in it, else apart as uncertain;
 * with its Wilson 95% interval either way.
 */
function completion(successes: number, ended: number): Pick<TimeseriesChartRow, 'completion_pct' | 'completion_ci' | 'completion_uncertain_pct'> {
  if (ended <= 0) return { completion_pct: null, completion_ci: null, completion_uncertain_pct: null };
  const pct = round((successes / ended) * 100, 1);
  const ci = wilsonInterval(Math.min(successes, ended), ended);
  return ended >= MIN_CERTAIN_ENDED
    ? { completion_pct: pct, completion_ci: ci, completion_uncertain_pct: null }
    : { completion_pct: null, completion_ci: ci, completion_uncertain_pct: pct };
}

/** "n=2, interval 16–100%": how many runs a rate stands on and its 95% interval. */
export function rateUncertainty(ended: number, ci: { low: number; high: number } | null): string {
  if (!ci) return `n=${ended}`;
  return `n=${ended}, interval ${Math.round(ci.low * 100)}–${Math.round(ci.high * 100)}%`;
}

/** Longer than this, a time axis names the year of its dates. */
const YEAR_MS = 365 * 24 * 3_600_000;

/**
 * Formats a bucket's start for the x axis: the time of day for hourly buckets, else the date;
 * with `withYear` (axes over more than a year, see `spansYears`) the year too.
 */
export function bucketLabel(t: number, bucketSeconds: number, timeZone?: string, withYear = false): string {
  const d = new Date(t);
  const year = withYear ? ({ year: 'numeric' } as const) : {};
  if (bucketSeconds < 86400) {
    return dateFormat({
      timeZone,
      ...year,
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(d);
  }
  return dateFormat({ timeZone, ...year, month: 'short', day: 'numeric' }).format(d);
}

/** Whether a time axis over these instants (epoch ms, ascending) is longer than a year. */
export function spansYears(ts: readonly number[]): boolean {
  return ts.length > 1 && ts[ts.length - 1] - ts[0] > YEAR_MS;
}

/** Tick spacings the time axes use, in hours: round times of day, then whole days and weeks. */
const TICK_STEPS_HOURS = [1, 2, 3, 6, 12, 24, 48, 168, 336, 720, 2160, 4320, 8760];
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Milliseconds to add to a UTC instant to get the wall-clock time in `timeZone` (local when unset; only UTC otherwise). */
function zoneOffsetMs(t: number, timeZone?: string): number {
  return timeZone === 'UTC' ? 0 : -new Date(t).getTimezoneOffset() * 60_000;
}

function onStep(t: number, stepHours: number, timeZone?: string): boolean {
  const wall = t + zoneOffsetMs(t, timeZone);
  if (stepHours < 24) return wall % (stepHours * HOUR_MS) === 0;
  if (wall % DAY_MS !== 0) return false;
  const day = wall / DAY_MS;
  // Weeks start on Mondays (day 0, 1970-01-01, was a Thursday).
  return stepHours % 168 === 0 ? (day + 3) % (stepHours / 24) === 0 : day % (stepHours / 24) === 0;
}

/**
 * X-axis ticks of a time chart: the bucket starts (`ts`, ascending epoch ms) that fall on round
 * times (every 1, 2, 3, 6 or 12 hours, midnights, Mondays), the finest spacing with at most
 * `max` ticks. Labels then line up with the calendar, and recharts measures these few labels
 * instead of one per bucket. Undefined when no spacing gives two ticks (recharts picks then).
 */
export function timeTicks(ts: readonly number[], bucketSeconds: number, max = 7, timeZone?: string): { ticks: number[]; stepHours: number } | undefined {
  if (ts.length < 2) return undefined;
  const span = ts[ts.length - 1] - ts[0];
  for (const stepHours of TICK_STEPS_HOURS) {
    if (stepHours * 3600 < bucketSeconds || span / (stepHours * HOUR_MS) > max) continue;
    const ticks = ts.filter((t) => onStep(t, stepHours, timeZone));
    if (ticks.length >= 2 && ticks.length <= max) return { ticks, stepHours };
  }
  return undefined;
}

/** A time-axis label: the date alone when ticks are whole days apart, else as `bucketLabel`; with the year on axes over a year. */
export function tickLabel(t: number, bucketSeconds: number, stepHours: number | undefined, timeZone?: string, withYear = false): string {
  return stepHours !== undefined && stepHours >= 24 ? bucketLabel(t, 86400, timeZone, withYear) : bucketLabel(t, bucketSeconds, timeZone, withYear);
}

export interface StepChartRow {
  step: number;
  input_tokens: number;
  output_tokens: number;
  tokens: number;
  cost_usd: number;
  latency_ms: number | null;
  error: boolean;
}

/** One row per step for the run page's per-step chart; a step is an error when it or a tool call failed. */
export function stepChartRows(steps: StepRow[], toolCalls: ToolCallRow[] = []): StepChartRow[] {
  const failedSteps = new Set<number>();
  for (const c of toolCalls) if (c.status === 'error' && c.step !== null) failedSteps.add(c.step);
  return [...steps]
    .sort((a, b) => a.step - b.step)
    .map((s) => ({
      step: s.step,
      input_tokens: s.input_tokens,
      output_tokens: s.output_tokens,
      tokens: s.input_tokens + s.output_tokens,
      cost_usd: s.cost_usd,
      latency_ms: s.latency_ms,
      error: stepHasError(s) || failedSteps.has(s.step),
    }));
}

export function stepHasError(s: Pick<StepRow, 'error_type' | 'error_message'>): boolean {
  return Boolean(s.error_type || s.error_message);
}

/** Tool calls keyed by step; calls without a step go under `null`. Each list is in time order. */
export function groupToolCallsByStep(calls: ToolCallRow[]): Map<number | null, ToolCallRow[]> {
  const byStep = new Map<number | null, ToolCallRow[]>();
  for (const c of calls) {
    const list = byStep.get(c.step);
    if (list) list.push(c);
    else byStep.set(c.step, [c]);
  }
  for (const list of byStep.values()) list.sort((a, b) => a.ts.localeCompare(b.ts) || a.call_id.localeCompare(b.call_id));
  return byStep;
}

/** Pretty-prints JSON text (tool arguments); text that isn't JSON comes back unchanged. */
export function prettyJson(text: string): string {
  const trimmed = text.trim();
  if (!trimmed || !/^[[{"]/.test(trimmed)) return text;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return text;
  }
}

/** Nice upper bound for an axis, so ticks are round numbers. */
export function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const exp = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * exp) return m * exp;
  return 10 * exp;
}

/**
 * X-axis ticks of the per-step chart: the rows (by their first step; binned rows start at it)
 * that hold round step numbers, about `target` of them: 0, 500, 1000, … for 5,000 steps. Gives
 * the axis round labels, and recharts measures these few instead of one label per bar.
 */
export function stepAxisTicks(rows: readonly { step: number; last: number }[], target = 10): number[] {
  return stepAxisTickMarks(rows, target).map((m) => m.at);
}

/**
 * The ticks of stepAxisTicks with the round number each stands for: `at` is the first step of the
 * row (a bin, when binned) that holds `label`, so a bin of steps 9,801–10,000 is labelled 10,000.
 */
export function stepAxisTickMarks(rows: readonly { step: number; last: number }[], target = 10): Array<{ at: number; label: number }> {
  if (rows.length === 0) return [];
  const first = rows[0].step;
  const end = rows[rows.length - 1].last;
  const raw = Math.max(1, (end - first) / target);
  const exp = Math.pow(10, Math.floor(Math.log10(raw)));
  const every = [1, 2, 5, 10].map((m) => m * exp).find((v) => v >= raw) ?? 10 * exp;
  const out: Array<{ at: number; label: number }> = [];
  let i = 0;
  for (let m = Math.ceil(first / every) * every; m <= end; m += every) {
    while (i < rows.length && rows[i].last < m) i++;
    if (i >= rows.length) break;
    // A round number in a gap between steps has no bar to stand under.
    if (rows[i].step <= m && out[out.length - 1]?.at !== rows[i].step) out.push({ at: rows[i].step, label: m });
  }
  return out;
}

/**
 * Round axis ticks from 0 covering `max` with about `target` intervals, each a step of
 * 1, 2, 2.5 or 5 × 10^k: max 300k → [0, 100k, 200k, 300k]; max 0.26 → [0, 0.1, 0.2, 0.3].
 */
export function niceTicks(max: number, target = 4): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1];
  const step = niceMax(max / target);
  const n = Math.max(1, Math.ceil(max / step - 1e-9));
  // Round each tick to the step's precision so 0.1 * 3 prints as 0.3.
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 2);
  return Array.from({ length: n + 1 }, (_, i) => Number((i * step).toFixed(digits)));
}

function round(v: number, digits: number): number {
  const f = Math.pow(10, digits);
  return Math.round(v * f) / f;
}
