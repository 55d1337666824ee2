// Shaping of SQL console results: column kinds from ClickHouse types, cell text, CSV and JSON
// downloads, chart data, and where in the editor an error points. Pure functions only.
import type { SqlColumn, SqlResult } from '../../../schemas/api.js';

/** `Nullable(LowCardinality(Float64))` → `Float64`. */
export function baseType(type: string): string {
  let t = type.trim();
  for (;;) {
    const m = t.match(/^(?:Nullable|LowCardinality)\((.*)\)$/s) ?? t.match(/^SimpleAggregateFunction\(\s*\w+\s*,\s*(.*)\)$/s);
    if (!m) return t;
    t = m[1].trim();
  }
}

const NUMERIC = /^(U?Int(8|16|32|64|128|256)|Float(32|64)|BFloat16|Decimal(32|64|128|256)?(\(.*\))?)$/;
const TIME = /^(Date|Date32|DateTime|DateTime64)(\(.*\))?$/;

/** Numbers: right-aligned in the table, plottable on a chart's y axis. */
export function isNumericType(type: string): boolean {
  return NUMERIC.test(baseType(type));
}

export function isTimeType(type: string): boolean {
  return TIME.test(baseType(type));
}

/** A cell as a number (64-bit integers may arrive as strings), or null. */
export function cellNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '' && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v.trim())) return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return null;
}

/** How a cell reads in the table: NULL for null, JSON for arrays, maps and tuples. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : cellText(v);
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

/** RFC 4180 CSV with a header line; NULL is an empty field; lines end with CRLF. */
export function toCsv(columns: readonly SqlColumn[], rows: readonly (readonly unknown[])[]): string {
  const lines = [columns.map((c) => csvField(c.name)).join(',')];
  for (const r of rows) lines.push(columns.map((_, i) => csvField(r[i])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** The rows as a JSON array of objects keyed by column name (duplicate names get a suffix). */
export function toJsonRows(columns: readonly SqlColumn[], rows: readonly (readonly unknown[])[]): string {
  const names = uniqueNames(columns.map((c) => c.name));
  return `${JSON.stringify(
    rows.map((r) => Object.fromEntries(names.map((n, i) => [n, r[i] ?? null]))),
    null,
    2,
  )}\n`;
}

/** `a, b, a` → `a, b, a_2`. */
export function uniqueNames(names: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((n) => {
    const k = (seen.get(n) ?? 0) + 1;
    seen.set(n, k);
    return k === 1 ? n : `${n}_${k}`;
  });
}

/** `trajscope-query-20261130-171455.csv` (UTC). */
export function downloadName(ext: 'csv' | 'json', at: Date): string {
  const iso = at.toISOString();
  return `trajscope-query-${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}.${ext}`;
}

export type ChartKind = 'line' | 'bar';

export interface ChartSpec {
  x: number;
  y: number;
  kind: ChartKind;
}

/** Columns that can go on a chart's y axis (numeric), by index. */
export function numericColumns(columns: readonly SqlColumn[]): number[] {
  return columns.flatMap((c, i) => (isNumericType(c.type) ? [i] : []));
}

/**
 * A sensible first chart: x is the first time column, else the first non-numeric column, else
 * the first column; y is the first numeric column other than x. Line over time, bars otherwise.
 * Null when nothing can be plotted.
 */
export function defaultChart(columns: readonly SqlColumn[]): ChartSpec | null {
  const nums = numericColumns(columns);
  if (nums.length === 0) return null;
  let x = columns.findIndex((c) => isTimeType(c.type));
  if (x < 0) x = columns.findIndex((c) => !isNumericType(c.type));
  if (x < 0 && nums.length > 1) x = nums[0];
  const y = nums.find((i) => i !== x);
  if (x < 0 || y === undefined) return null;
  return { x, y, kind: isTimeType(columns[x].type) ? 'line' : 'bar' };
}

/** A chart named by columns (as examples give it), if the result has them. */
export function chartByNames(columns: readonly SqlColumn[], want: { x: string; y: string; kind: ChartKind }): ChartSpec | null {
  const x = columns.findIndex((c) => c.name === want.x);
  const y = columns.findIndex((c) => c.name === want.y);
  if (x < 0 || y < 0 || !isNumericType(columns[y].type)) return null;
  return { x, y, kind: want.kind };
}

/** A spec that still fits the columns (after a new result), else the default. */
export function fitChart(columns: readonly SqlColumn[], prev: ChartSpec | null): ChartSpec | null {
  if (prev && prev.x < columns.length && prev.y < columns.length && isNumericType(columns[prev.y].type)) return prev;
  return defaultChart(columns);
}

export interface ChartPoint {
  x: string | number;
  y: number | null;
}

/** At most this many rows are plotted; the table still shows them all. */
export const MAX_CHART_POINTS = 1000;

/** Rows as chart points: x as text (a category) unless it is a number; y as a number or null. */
export function chartPoints(result: SqlResult, spec: ChartSpec, max = MAX_CHART_POINTS): ChartPoint[] {
  const xNumeric = isNumericType(result.columns[spec.x]?.type ?? '');
  return result.rows.slice(0, max).map((r) => {
    const xv = r[spec.x];
    const xn = xNumeric ? cellNumber(xv) : null;
    return { x: xn ?? cellText(xv), y: cellNumber(r[spec.y]) };
  });
}

/**
 * Where a ClickHouse error points in the editor's text: "… failed at position 12 (…)" counts
 * from 1 in the statement the server ran, which is the text without leading white space.
 * Returns a 0-based offset into `sql`, or null.
 */
export function errorOffset(sql: string, message: string): number | null {
  const m = message.match(/\bposition (\d+)\b/i);
  if (!m) return null;
  const pos = Number(m[1]);
  if (!Number.isInteger(pos) || pos < 1) return null;
  const lead = sql.length - sql.trimStart().length;
  return Math.min(sql.length, lead + pos - 1);
}

export interface ErrorParts {
  /** What went wrong, with the text the error points at. */
  summary: string;
  /** ClickHouse's list of what it expected instead, when it gave one. */
  expected: string | null;
}

/**
 * Splits a ClickHouse message into what a person reads first and the long "Expected one of"
 * list, and drops the `FORMAT JSONCompact` that the client appended to the statement.
 */
export function splitSqlError(message: string): ErrorParts {
  const clean = message.replace(/\s*\bFORMAT JSONCompact\b/g, '').trim();
  const i = clean.search(/\.?\s*Expected one of:/);
  if (i < 0) return { summary: clean, expected: null };
  const expected = clean.slice(i).replace(/^\.?\s*Expected one of:\s*/, '').replace(/\.\s*$/, '');
  return { summary: clean.slice(0, i).trim(), expected: expected || null };
}

/** Line and column (1-based) of an offset, for "line 3, column 7". */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** 1536 → "1.5 KB", 35_000_000 → "33 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}
