// The overview's charts over time. Clicking a bucket opens the runs of that time window.
import type { ReactNode } from 'react';
import { Bar, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { noVerticalLines } from '../components/chart-card.js';
import { bucketLabel, tickLabel, timeTicks, type TimeseriesChartRow } from '../lib/chart-data.js';
import { formatInt, formatUsd, formatUsdAxis } from '../lib/format.js';
import { OTHER_MODES, type FailureModeRow } from '../lib/overview-data.js';

const C = {
  success: 'var(--c-success)',
  failure: 'var(--c-failure)',
  other: 'var(--c-running-chart)',
  line: 'var(--c-accent)',
  line2: 'var(--c-accent-2)',
  grid: 'var(--c-grid)',
  axis: 'var(--c-muted)',
};

interface ChartProps {
  rows: TimeseriesChartRow[];
  bucketSeconds: number;
  onSelect: (row: TimeseriesChartRow) => void;
  /** Only the card for now: the chart is drawn in a later frame (the overview draws one at a time). */
  pending?: boolean;
}

const axisTick = { fontSize: 11, fill: C.axis };

/** Most ticks on the time axis of a chart as wide as the page, and of one half as wide. */
const WIDE_TICKS = 10;
const HALF_TICKS = 7;

/** The time axis: ticks on round times (see `timeTicks`), labels as far apart as they need. */
function xAxis(rows: readonly { t: number }[], bucketSeconds: number, maxTicks: number) {
  const round = timeTicks(
    rows.map((r) => r.t),
    bucketSeconds,
    maxTicks,
  );
  return (
    <XAxis
      dataKey="t"
      ticks={round?.ticks}
      tickFormatter={(t: number) => tickLabel(t, bucketSeconds, round?.stepHours)}
      tick={axisTick}
      tickLine={false}
      axisLine={{ stroke: C.grid }}
      minTickGap={24}
    />
  );
}

/** recharts' chart-level click: find the row under the pointer. */
function clickHandler(rows: TimeseriesChartRow[], onSelect: (row: TimeseriesChartRow) => void) {
  return (state: { activeTooltipIndex?: number | string | null } | null) => {
    const i = state?.activeTooltipIndex;
    if (i === null || i === undefined) return;
    const row = rows[Number(i)];
    if (row) onSelect(row);
  };
}

/** A bar's own click: recharts passes the index of its row. */
function barClick(rows: TimeseriesChartRow[], onSelect: (row: TimeseriesChartRow) => void) {
  return (_data: unknown, index: number) => {
    const row = rows[index];
    if (row) onSelect(row);
  };
}

interface LegendKey {
  label: string;
  color: string;
  /** Drawn as a line (solid or dashed) instead of a box. */
  line?: 'solid' | 'dashed';
}

/**
 * The series of a chart under it, in HTML: recharts' own legend measures itself after drawing and
 * makes the whole chart lay out and draw a second time.
 */
function ChartLegend({ keys }: { keys: LegendKey[] }) {
  return (
    <div className="chart-legend">
      {keys.map((k) => (
        <span key={k.label} className="chart-legend-key">
          <i
            className={k.line ? `swatch swatch-line${k.line === 'dashed' ? ' swatch-dashed' : ''}` : 'swatch'}
            style={k.line ? { borderColor: k.color } : { background: k.color }}
            aria-hidden="true"
          />
          {k.label}
        </span>
      ))}
    </div>
  );
}

function ChartCard({ title, subtitle, pending, legend, children }: { title: string; subtitle?: string; pending?: boolean; legend?: LegendKey[]; children: ReactNode }) {
  return (
    <section className="card chart-card">
      <div className="card-head">
        <h3>{title}</h3>
        {subtitle && <span className="muted small">{subtitle}</span>}
      </div>
      <div className={legend ? 'chart-box chart-box-with-legend' : 'chart-box'} aria-busy={pending || undefined}>
        {pending ? null : children}
      </div>
      {legend && <ChartLegend keys={legend} />}
    </section>
  );
}

const RUNS_LEGEND: LegendKey[] = [
  { label: 'Succeeded', color: C.success },
  { label: 'Did not succeed', color: C.failure },
  { label: 'Running', color: C.other },
  { label: 'Completion rate', color: C.line, line: 'solid' },
];
const STEPS_LEGEND: LegendKey[] = [
  { label: 'p50', color: C.line, line: 'solid' },
  { label: 'p90', color: C.line2, line: 'dashed' },
];

function tooltipLabel(bucketSeconds: number) {
  return (t: unknown) => (typeof t === 'number' ? bucketLabel(t, bucketSeconds) : String(t));
}

const tooltipStyle = { fontSize: 12, borderRadius: 6, border: '1px solid var(--c-border)' };

export function RunsChart({ rows, bucketSeconds, onSelect, pending }: ChartProps) {
  const chartRows = rows.map((r) => ({ ...r, other: Math.max(0, r.runs - r.ended) }));
  return (
    <ChartCard title="Runs and completion rate" subtitle="click a bar to see its runs" pending={pending} legend={RUNS_LEGEND}>
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={chartRows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={C.grid} vertical={false} verticalCoordinatesGenerator={noVerticalLines} />
          {xAxis(rows, bucketSeconds, WIDE_TICKS)}
          <YAxis yAxisId="runs" allowDecimals={false} tick={axisTick} tickLine={false} axisLine={false} width={40} />
          <YAxis
            yAxisId="pct"
            orientation="right"
            domain={[0, 100]}
            tickFormatter={(v: number) => `${v}%`}
            tick={axisTick}
            tickLine={false}
            axisLine={false}
            width={40}
          />
          <Tooltip
            contentStyle={tooltipStyle}
            labelFormatter={tooltipLabel(bucketSeconds)}
            formatter={(value, name) => (name === 'Completion rate' ? [value === null ? '—' : `${value}%`, name] : [formatInt(Number(value)), name])}
          />
          <Bar onClick={barClick(rows, onSelect)} yAxisId="runs" dataKey="successes" name="Succeeded" stackId="runs" fill={C.success} cursor="pointer" isAnimationActive={false} />
          <Bar onClick={barClick(rows, onSelect)} yAxisId="runs" dataKey="failures" name="Did not succeed" stackId="runs" fill={C.failure} cursor="pointer" isAnimationActive={false} />
          <Bar onClick={barClick(rows, onSelect)} yAxisId="runs" dataKey="other" name="Running" stackId="runs" fill={C.other} cursor="pointer" isAnimationActive={false} />
          <Line
            yAxisId="pct"
            dataKey="completion_pct"
            name="Completion rate"
            stroke={C.line}
            strokeWidth={2}
            dot={rows.length < 120 ? { r: 2 } : false}
            isAnimationActive={false}
          />
        </ComposedChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

export function CostChart({ rows, bucketSeconds, onSelect, pending }: ChartProps) {
  return (
    <ChartCard title="Cost" subtitle="USD per bucket" pending={pending}>
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={C.grid} vertical={false} verticalCoordinatesGenerator={noVerticalLines} />
          {xAxis(rows, bucketSeconds, HALF_TICKS)}
          <YAxis tickFormatter={(v: number) => formatUsdAxis(v)} tick={axisTick} tickLine={false} axisLine={false} width={48} />
          <Tooltip contentStyle={tooltipStyle} labelFormatter={tooltipLabel(bucketSeconds)} formatter={(v, name) => [formatUsd(Number(v)), name]} />
          <Bar onClick={barClick(rows, onSelect)} dataKey="cost_usd" name="Cost" fill={C.line} cursor="pointer" isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

export function StepsChart({ rows, bucketSeconds, onSelect, pending }: ChartProps) {
  return (
    <ChartCard title="Steps per run" subtitle="median and 90th percentile" pending={pending} legend={STEPS_LEGEND}>
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={rows} onClick={clickHandler(rows, onSelect)} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={C.grid} vertical={false} verticalCoordinatesGenerator={noVerticalLines} />
          {xAxis(rows, bucketSeconds, HALF_TICKS)}
          <YAxis allowDecimals={false} tick={axisTick} tickLine={false} axisLine={false} width={40} />
          <Tooltip contentStyle={tooltipStyle} labelFormatter={tooltipLabel(bucketSeconds)} formatter={(v, name) => [v === null ? '—' : formatInt(Number(v)), name]} />
          <Line dataKey="steps_p50" name="p50" stroke={C.line} strokeWidth={2} dot={rows.length < 120 ? { r: 2 } : false} connectNulls isAnimationActive={false} />
          <Line dataKey="steps_p90" name="p90" stroke={C.line2} strokeWidth={2} strokeDasharray="5 3" dot={rows.length < 120 ? { r: 2 } : false} connectNulls isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}


const MODE_COLORS = ['#d2554c', '#3b9ab2', '#8e6bd1', '#e0a526', '#c2577f', '#5f8f3e'];

export function modeColor(i: number, mode: string): string {
  return mode === OTHER_MODES ? 'var(--c-neutral-chart)' : MODE_COLORS[i % MODE_COLORS.length];
}

/** Failure modes of the runs started in each bucket, stacked; a segment opens those runs. */
export function FailureModesChart({
  rows,
  modes,
  bucketSeconds,
  onSelect,
}: {
  rows: FailureModeRow[];
  modes: string[];
  bucketSeconds: number;
  onSelect: (row: FailureModeRow, mode: string | null) => void;
}) {
  return (
    <ChartCard
      title="Failure modes"
      subtitle="runs by failure mode · click a segment to see them"
      legend={modes.map((m, i) => ({ label: m, color: modeColor(i, m) }))}
    >
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={C.grid} vertical={false} verticalCoordinatesGenerator={noVerticalLines} />
          {xAxis(rows, bucketSeconds, WIDE_TICKS)}
          <YAxis allowDecimals={false} tick={axisTick} tickLine={false} axisLine={false} width={40} />
          <Tooltip contentStyle={tooltipStyle} labelFormatter={tooltipLabel(bucketSeconds)} formatter={(v, name) => [formatInt(Number(v)), name]} />
          {modes.map((m, i) => (
            <Bar
              key={m}
              dataKey={m}
              name={m}
              stackId="modes"
              fill={modeColor(i, m)}
              cursor="pointer"
              isAnimationActive={false}
              onClick={(_d: unknown, index: number) => {
                const row = rows[index];
                if (row) onSelect(row, m === OTHER_MODES ? null : m);
              }}
            />
          ))}
        </ComposedChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}
