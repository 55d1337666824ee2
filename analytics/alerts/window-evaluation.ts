// Window rules judged from metrics the server computed: metric_threshold (one overview metric
// against a value), completion_rate_drop (a cohort's completion rate against its trailing
// baseline) and error_signature (an error signature new in the window, or grown over its
// baseline). Pure.
import { normalCdf, twoProportionZTest } from '../robust-stats.js';
import type { Observation } from './firing-decisions.js';
import type { completionRateDropParams, errorSignatureParams, metricThresholdParams, ThresholdMetric } from '../../schemas/alert-rules.js';
import type { z } from 'zod';

type ThresholdParams = z.output<typeof metricThresholdParams>;
type DropParams = z.output<typeof completionRateDropParams>;
type SignatureParams = z.output<typeof errorSignatureParams>;

/** Metrics of a window's runs (the fields of schemas/api.ts RunMetrics that rules may watch). */
export type WindowMetrics = { runs: number; ended: number } & Partial<Record<ThresholdMetric, number | null>>;

/** Metrics that are rates over ended runs: min_runs counts ended runs for them. */
const OF_ENDED: ReadonlySet<ThresholdMetric> = new Set(['completion_rate', 'cost_per_success']);
/** Totals: known (0) even when the window holds no run, so min_runs does not apply to them. */
const TOTALS: ReadonlySet<ThresholdMetric> = new Set([
  'cost_usd', 'runs', 'ended', 'successes', 'running', 'failed', 'runs_with_loops', 'suspicious', 'input_tokens', 'output_tokens',
]);

export interface ThresholdVerdict {
  observation: Observation;
  value: number | null;
  /** Runs (or ended runs) the value is computed over. */
  count: number;
}

export function evaluateThreshold(m: WindowMetrics, p: ThresholdParams): ThresholdVerdict {
  const count = OF_ENDED.has(p.metric) ? m.ended : m.runs;
  const value = m[p.metric] ?? (TOTALS.has(p.metric) ? 0 : null);
  if ((!TOTALS.has(p.metric) && count < p.min_runs) || value === null || !Number.isFinite(value)) return { observation: 'unknown', value, count };
  const holds = p.op === '<' ? value < p.value : p.op === '<=' ? value <= p.value : p.op === '>' ? value > p.value : value >= p.value;
  return { observation: holds ? 'holds' : 'clear', value, count };
}

export interface CompletionCounts {
  ended: number;
  successes: number;
}

export interface DropVerdict {
  observation: Observation;
  rate: number | null;
  baseline_rate: number | null;
  /** baseline rate − window rate. */
  drop: number | null;
  /** One-sided p-value of "the window's rate is lower" (pooled two-proportion z test). */
  p_value: number | null;
  ended: number;
  baseline_ended: number;
}

export function evaluateCompletionDrop(window: CompletionCounts, baseline: CompletionCounts, p: DropParams): DropVerdict {
  const rate = window.ended ? window.successes / window.ended : null;
  const baselineRate = baseline.ended ? baseline.successes / baseline.ended : null;
  const out = { rate, baseline_rate: baselineRate, ended: window.ended, baseline_ended: baseline.ended };
  if (rate === null || baselineRate === null || window.ended < p.min_runs || baseline.ended < p.min_runs) {
    return { observation: 'unknown', drop: null, p_value: null, ...out };
  }
  const test = twoProportionZTest(baseline.successes, baseline.ended, window.successes, window.ended);
  const pValue = test.z === 0 ? (rate < baselineRate ? 0 : 1) : normalCdf(test.z);
  const drop = baselineRate - rate;
  const holds = drop >= p.min_drop && drop > 0 && pValue <= p.max_p_value;
  return { observation: holds ? 'holds' : 'clear', drop, p_value: pValue, ...out };
}

export interface SignatureCounts {
  /** Runs and occurrences of the signature in the window. */
  runs: number;
  occurrences: number;
  /** First seen in the window (never before, in any run of the projects). */
  new_in_window: boolean;
}

export interface SignatureVerdict {
  observation: Observation;
  /** Why it holds: new in the window, or grown over its baseline. */
  reason: 'new' | 'growth' | null;
  /** Occurrences per second in the window over those in the baseline (null without a baseline). */
  factor: number | null;
}

/**
 * A signature of the window against its baseline (occurrences in the baseline_s before it): new
 * in more than new_min_runs runs, or known and at growth_factor times its baseline rate in at
 * least min_runs runs. A known signature absent from the baseline grows from nothing: it holds
 * on min_runs alone.
 */
export function evaluateSignature(w: SignatureCounts, baselineOccurrences: number, p: SignatureParams): SignatureVerdict {
  if (w.new_in_window) return { observation: w.runs > p.new_min_runs ? 'holds' : 'clear', reason: w.runs > p.new_min_runs ? 'new' : null, factor: null };
  const rate = w.occurrences / p.window_s;
  const baseRate = baselineOccurrences / p.baseline_s;
  const factor = baseRate > 0 ? rate / baseRate : null;
  const grown = w.runs >= p.min_runs && (factor === null ? w.occurrences > 0 : factor >= p.growth_factor);
  return { observation: grown ? 'holds' : 'clear', reason: grown ? 'growth' : null, factor };
}
