// Tokens and cost per step; error steps in red, loops shaded, the last step marked. Runs with
// more steps than MAX_BARS are drawn in bins of consecutive steps. Clicking a bar opens its step.
import { memo, useMemo } from 'react';
import { Bar, CartesianGrid, Cell, ComposedChart, Line, ReferenceArea, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { LoopInfo } from '../../../schemas/api.js';
import { noVerticalLines } from '../components/chart-card.js';
import { niceTicks, stepAxisTicks } from '../lib/chart-data.js';
import { formatInt, formatTokens, formatUsd, formatUsdAxis } from '../lib/format.js';
import { binRows, type OutlineRow } from '../lib/step-outline.js';

const axisTick = { fontSize: 11, fill: 'var(--c-muted)' };
const MAX_BARS = 500;

/** The x value (a row's first step) of the row holding `step`. */
function rowStepOf(rows: OutlineRow[], step: number): number | undefined {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (step < rows[mid].step) hi = mid - 1;
    else if (step > rows[mid].last) lo = mid + 1;
    else return rows[mid].step;
  }
  return undefined;
}

/** Drawn again only when its props change: the run page re-renders as step windows arrive. */
export const StepChart = memo(function StepChart({ rows: all, loops, onSelect }: { rows: OutlineRow[]; loops: LoopInfo[]; onSelect: (step: number) => void }) {
  const rows = useMemo(() => binRows(all, MAX_BARS), [all]);
  const xTicks = useMemo(() => stepAxisTicks(rows), [rows]);
  const binned = rows.length < all.length;
  const { tokenTicks, costTicks, errors } = useMemo(() => {
    let tok = 0;
    let usd = 0;
    let err = 0;
    for (const r of rows) {
      tok = Math.max(tok, r.tokens);
      usd = Math.max(usd, r.cost_usd);
      err += r.errors;
    }
    return { tokenTicks: niceTicks(tok), costTicks: niceTicks(usd), errors: err };
  }, [rows]);
  if (rows.length === 0) return null;
  const last = rows[rows.length - 1];
  return (
    <section className="card chart-card step-chart" aria-label="Tokens and cost per step">
      <div className="card-head">
        <h3>Per step</h3>
        {binned && <span className="muted small">{formatInt(all.length)} steps, {formatInt(last.last - last.step + 1)} per bar</span>}
        <span className="legend-inline small">
          <i className="sw sw-in" /> input tokens <i className="sw sw-out" /> output tokens <i className="sw sw-cost" /> cost
          {errors > 0 && (
            <>
              {' '}
              <i className="sw sw-err" /> error ({formatInt(errors)})
            </>
          )}
          {loops.length > 0 && (
            <>
              {' '}
              <i className="sw sw-loop" /> loop ({loops.length})
            </>
          )}
        </span>
      </div>
      <div className="chart-box chart-box-small">
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart
            data={rows}
            margin={{ top: 6, right: 4, bottom: 0, left: 0 }}
            barCategoryGap={rows.length > 150 ? 0 : '15%'}
            onClick={(state: { activeTooltipIndex?: number | string | null } | null) => {
              const i = state?.activeTooltipIndex;
              if (i === null || i === undefined) return;
              const row = rows[Number(i)];
              if (row) onSelect(row.step);
            }}
          >
            <CartesianGrid stroke="var(--c-grid)" vertical={false} verticalCoordinatesGenerator={noVerticalLines} />
            <XAxis dataKey="step" ticks={xTicks} tick={axisTick} tickLine={false} axisLine={{ stroke: 'var(--c-grid)' }} minTickGap={16} />
            <YAxis yAxisId="tok" domain={[0, tokenTicks[tokenTicks.length - 1]]} ticks={tokenTicks} tickFormatter={(v: number) => formatTokens(v)} tick={axisTick} tickLine={false} axisLine={false} width={44} />
            <YAxis
              yAxisId="usd"
              orientation="right"
              domain={[0, costTicks[costTicks.length - 1]]}
              ticks={costTicks}
              tickFormatter={(v: number) => formatUsdAxis(v)}
              tick={axisTick}
              tickLine={false}
              axisLine={false}
              width={56}
            />
            {loops.map((l, i) => {
              const x1 = rowStepOf(rows, l.first_step);
              const x2 = rowStepOf(rows, l.last_step);
              if (x1 === undefined || x2 === undefined) return null;
              return <ReferenceArea key={i} yAxisId="tok" x1={x1} x2={x2} fill="var(--c-warn)" fillOpacity={0.18} stroke="var(--c-warn)" strokeOpacity={0.5} />;
            })}
            <ReferenceLine yAxisId="tok" x={last.step} stroke="var(--c-muted)" strokeDasharray="3 3" />
            <Tooltip
              contentStyle={{ fontSize: 12, borderRadius: 6, border: '1px solid var(--c-border)' }}
              labelFormatter={(s) => {
                const row = rows.find((r) => r.step === Number(s));
                if (!row) return `Step ${s}`;
                const label = row.last > row.step ? `Steps ${row.step}–${row.last}` : `Step ${row.step}`;
                return `${label}${row.errors ? ` — ${row.errors > 1 ? `${row.errors} errors` : 'error'}` : ''}`;
              }}
              formatter={(v, name) => [name === 'Cost' ? formatUsd(Number(v)) : formatTokens(Number(v)), name]}
            />
            <Bar yAxisId="tok" dataKey="input_tokens" name="Input tokens" stackId="t" fill="var(--c-tokens-in)" cursor="pointer" isAnimationActive={false}>
              {rows.map((r) => (
                <Cell key={r.step} fill={r.error ? 'var(--c-failure)' : 'var(--c-tokens-in)'} />
              ))}
            </Bar>
            <Bar yAxisId="tok" dataKey="output_tokens" name="Output tokens" stackId="t" fill="var(--c-tokens-out)" cursor="pointer" isAnimationActive={false}>
              {rows.map((r) => (
                <Cell key={r.step} fill={r.error ? 'var(--c-failure-dark)' : 'var(--c-tokens-out)'} />
              ))}
            </Bar>
            <Line yAxisId="usd" dataKey="cost_usd" name="Cost" stroke="var(--c-accent-2)" strokeWidth={1.5} dot={false} isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
    </section>
  );
});
