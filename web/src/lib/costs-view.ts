// Shapes the Costs page's data: spend over time per model (GET /api/v1/metrics/timeseries with
// group_by=model) and the spikes of GET /api/v1/costs/spikes. Pure.
import type { CostSpikesReport, Timeseries } from '../../../schemas/api.js';

/** Key of the series that holds the spend of models outside the top ones. */
export const OTHER_KEY = 'other models';

export interface SpendRow {
  t: number;
  from: string;
  to: string;
  total: number;
  [model: string]: number | string;
}

export interface SpendByModel {
  /** Models by total spend, largest first (plus OTHER_KEY last when some spend is outside the series). */
  keys: string[];
  rows: SpendRow[];
  totals: Map<string, number>;
}

/**
 * Rows of the stacked spend chart: one per bucket, a column per model. The API returns the top
 * models' series and the overall points; what the series don't cover goes to OTHER_KEY.
 */
export function spendByModel(ts: Timeseries): SpendByModel {
  const width = Math.max(1, ts.bucket_seconds) * 1000;
  const rowsByT = new Map<number, SpendRow>();
  const row = (bucket: string): SpendRow | undefined => {
    const t = new Date(bucket).getTime();
    if (!Number.isFinite(t)) return undefined;
    let r = rowsByT.get(t);
    if (!r) {
      r = { t, from: new Date(t).toISOString(), to: new Date(t + width).toISOString(), total: 0 };
      rowsByT.set(t, r);
    }
    return r;
  };
  const totals = new Map<string, number>();
  for (const p of ts.points) {
    const r = row(p.bucket);
    if (r) r.total = p.cost_usd;
  }
  for (const s of ts.series ?? []) {
    for (const p of s.points) {
      const r = row(p.bucket);
      if (!r) continue;
      r[s.key] = p.cost_usd;
      totals.set(s.key, (totals.get(s.key) ?? 0) + p.cost_usd);
    }
  }
  const keys = [...totals.keys()].sort((a, b) => (totals.get(b) ?? 0) - (totals.get(a) ?? 0) || a.localeCompare(b));
  let other = 0;
  const rows = [...rowsByT.values()].sort((a, b) => a.t - b.t);
  for (const r of rows) {
    let covered = 0;
    for (const k of keys) {
      const v = typeof r[k] === 'number' ? (r[k] as number) : 0;
      r[k] = v;
      covered += v;
    }
    const rest = r.total - covered;
    // Float sums: ignore differences below a hundredth of a cent.
    r[OTHER_KEY] = rest > 1e-4 ? rest : 0;
    other += r[OTHER_KEY] as number;
  }
  if (other > 0) {
    keys.push(OTHER_KEY);
    totals.set(OTHER_KEY, other);
  } else {
    for (const r of rows) delete r[OTHER_KEY];
  }
  return { keys, rows, totals };
}

export interface HourRow {
  hour: string;
  t: number;
  cost_usd: number;
  baseline_usd: number;
  over_usd: number;
  factor: number;
}

/** Hours of spend above baseline, most recent first, with the amount over it. */
export function hourRows(hours: CostSpikesReport['hours']): HourRow[] {
  return hours
    .map((h) => ({ ...h, t: new Date(h.hour).getTime(), over_usd: Math.max(0, h.cost_usd - h.baseline_usd) }))
    .filter((h) => Number.isFinite(h.t))
    .sort((a, b) => b.t - a.t);
}

/** "12.3×" with a precision that fits: 1.46 → "1.5×", 47.4 → "47×". */
export function formatFactor(f: number | null | undefined): string {
  if (f === null || f === undefined || !Number.isFinite(f)) return '—';
  return `${f >= 10 ? Math.round(f) : f.toFixed(1)}×`;
}
