// Compare: completion rate of each cohort with its 95% interval, and the failure-mode shift.
import { Bar, BarChart, CartesianGrid, Cell, ErrorBar, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { CompareReport } from '../../../schemas/api.js';
import { axisTick, ChartCard, gridStroke, tooltipStyle } from '../components/chart-card.js';
import { seriesColor } from '../lib/chart-colors.js';
import { formatP, type ModeShiftRow } from '../lib/compare-view.js';
import { modeLabel } from '../lib/failures-view.js';
import { formatInterval, formatPercent } from '../lib/format.js';

export function CompletionChart({ report, aLabel, bLabel }: { report: CompareReport; aLabel: string; bLabel: string }) {
  const row = (label: string, m: CompareReport['a'], i: number) => {
    const rate = m.completion_rate ?? 0;
    const ci = m.completion_rate_ci;
    return { label, rate: rate * 100, err: ci ? [Math.max(0, (rate - ci.low) * 100), Math.max(0, (ci.high - rate) * 100)] : [0, 0], ci, color: seriesColor(i) };
  };
  const rows = [row(`A · ${aLabel}`, report.a, 0), row(`B · ${bLabel}`, report.b, 1)];
  return (
    <ChartCard title="Completion rate" subtitle={`with 95% intervals · difference ${formatP(report.completion_test.p_value)}`} testId="chart-compare-completion">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 24, bottom: 0, left: 8 }}>
          <CartesianGrid stroke={gridStroke} horizontal={false} />
          <XAxis type="number" domain={[0, 100]} tickFormatter={(v: number) => `${v}%`} tick={axisTick} tickLine={false} axisLine={false} />
          <YAxis type="category" dataKey="label" width={160} tick={axisTick} tickLine={false} axisLine={false} />
          <Tooltip
            contentStyle={tooltipStyle}
            formatter={(v, _n, item) => {
              const r = item.payload as (typeof rows)[number];
              return [`${formatPercent(Number(v) / 100)}${r.ci ? ` (95% CI ${formatInterval(r.ci)})` : ''}`, 'Completion'];
            }}
          />
          <Bar dataKey="rate" isAnimationActive={false} barSize={28}>
            {rows.map((r) => (
              <Cell key={r.label} fill={r.color} />
            ))}
            <ErrorBar dataKey="err" width={8} strokeWidth={1.5} stroke="var(--c-text)" direction="x" isAnimationActive={false} />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

export function ModeShiftChart({ rows }: { rows: ModeShiftRow[] }) {
  const data = rows.map((r) => ({ ...r, label: modeLabel(r.mode), shift: r.shift_pp ?? 0 }));
  const height = Math.max(200, data.length * 24 + 48);
  const max = Math.max(1, ...data.map((d) => Math.abs(d.shift)));
  return (
    <ChartCard title="Failure-mode shift" subtitle="share of failed runs, B − A in points · faded: not significant" height={height} testId="chart-mode-shift">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 24, bottom: 0, left: 8 }}>
          <CartesianGrid stroke={gridStroke} horizontal={false} />
          <XAxis type="number" domain={[-Math.ceil(max), Math.ceil(max)]} tickFormatter={(v: number) => `${v > 0 ? '+' : ''}${v} pp`} tick={axisTick} tickLine={false} axisLine={false} />
          <YAxis type="category" dataKey="label" width={140} tick={axisTick} tickLine={false} axisLine={false} interval={0} />
          <ReferenceLine x={0} stroke="var(--c-border-strong)" />
          <Tooltip
            contentStyle={tooltipStyle}
            formatter={(_v, _n, item) => {
              const r = item.payload as (typeof data)[number];
              return [`A ${formatPercent(r.a_share)} (${r.a_runs}) → B ${formatPercent(r.b_share)} (${r.b_runs}) · ${formatP(r.p_value)}`, 'Share of failed'];
            }}
          />
          <Bar dataKey="shift" isAnimationActive={false}>
            {data.map((d) => (
              <Cell key={d.mode} fill={d.shift > 0 ? seriesColor(1) : seriesColor(0)} fillOpacity={d.significant ? 1 : 0.45} />
            ))}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}
