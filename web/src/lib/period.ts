// The period before the one in view, for "change vs previous period" on the overview. Pure.
import { resolveRange, type Filters } from './filters.js';

/**
 * The same filters over the window of equal length just before the current one; null for
 * "all time" or an open-ended custom range (there is no previous period to compare with).
 */
export function previousPeriod(f: Filters, now: Date): Filters | null {
  const { from, to } = resolveRange(f, now);
  if (!from) return null;
  const start = Date.parse(from);
  const end = to ? Date.parse(to) : now.getTime();
  if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start) return null;
  const len = end - start;
  return { ...f, range: 'custom', from: new Date(start - len).toISOString(), to: new Date(start).toISOString() };
}

export interface Change {
  /** Relative change (0.1 = +10 %), or null when the previous value is 0 or missing. */
  relative: number | null;
  /** Absolute change (for rates: percentage points × 0.01). */
  absolute: number | null;
}

export function change(current: number | null | undefined, previous: number | null | undefined): Change {
  if (current === null || current === undefined || previous === null || previous === undefined) return { relative: null, absolute: null };
  return { absolute: current - previous, relative: previous === 0 ? null : (current - previous) / Math.abs(previous) };
}

/**
 * Text and tone of a change: "+12%" / "−3.1 pp" for rates; tone says whether the change is good
 * for this metric (`higherIsBetter`), neutral when unknown or tiny.
 */
export function describeChange(c: Change, o: { rate?: boolean; higherIsBetter?: boolean }): { text: string; tone: 'good' | 'bad' | 'neutral' } | null {
  const v = o.rate ? c.absolute : c.relative;
  if (v === null || !Number.isFinite(v)) return null;
  const pct = v * 100;
  const digits = Math.abs(pct) < 10 ? 1 : 0;
  const rounded = Number(pct.toFixed(digits));
  const sign = rounded > 0 ? '+' : rounded < 0 ? '−' : '±';
  const text = `${sign}${Math.abs(rounded).toFixed(digits)}${o.rate ? ' pp' : '%'}`;
  if (rounded === 0 || o.higherIsBetter === undefined) return { text, tone: 'neutral' };
  return { text, tone: (rounded > 0) === o.higherIsBetter ? 'good' : 'bad' };
}
