// Tokens and cost per step; error steps in red. Clicking a step scrolls the list to it.
import { Bar, CartesianGrid, Cell, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { niceTicks, type StepChartRow } from '../lib/chart-data.js';
import { formatDuration, formatTokens, formatUsd, formatUsdAxis } from '../lib/format.js';

const axisTick = { fontSize: 11, fill: 'var(--c-muted)' };

export function StepChart({ rows, onSelect }: { rows: StepChartRow[]; onSelect: (step: number) => void }) {
  if (rows.length === 0) return null;
  const errors = rows.filter((r) => r.error).length;
  const dense = rows.length > 150;
  const tokenTicks = niceTicks(Math.max(...rows.map((r) => r.tokens)));
  const costTicks = niceTicks(Math.max(...rows.map((r) => r.cost_usd)));
  return (
    <section className="card chart-card step-chart">
      <div className="card-head">
        <h3>Per step</h3>
        <span className="legend-inline small">
          <i className="sw sw-in" /> input tokens <i className="sw sw-out" /> output tokens <i className="sw sw-cost" /> cost
          {errors > 0 && (
            <>
              {' '}
              <i className="sw sw-err" /> error step ({errors})
            </>
          )}
        </span>
      </div>
      <div className="chart-box chart-box-small">
        <ResponsiveContainer width="100%" height="100%">
          <ComposedChart
            data={rows}
            margin={{ top: 6, right: 4, bottom: 0, left: 0 }}
            barCategoryGap={dense ? 0 : '15%'}
            onClick={(state: { activeTooltipIndex?: number | string | null } | null) => {
              const i = state?.activeTooltipIndex;
              if (i === null || i === undefined) return;
              const row = rows[Number(i)];
              if (row) onSelect(row.step);
            }}
          >
            <CartesianGrid stroke="var(--c-grid)" vertical={false} />
            <XAxis dataKey="step" tick={axisTick} tickLine={false} axisLine={{ stroke: 'var(--c-grid)' }} minTickGap={16} />
            <YAxis yAxisId="tok" domain={[0, tokenTicks[tokenTicks.length - 1]]} ticks={tokenTicks} tickFormatter={(v: number) => formatTokens(v)} tick={axisTick} tickLine={false} axisLine={false} width={44} />
            <YAxis
              yAxisId="usd"
              orientation="right"
              domain={[0, costTicks[costTicks.length - 1]]}
              ticks={costTicks}
              tickFormatter={(v: number) => formatUsdAxis(v)} tick={axisTick} tickLine={false} axisLine={false} width={56} />
            <Tooltip
              contentStyle={{ fontSize: 12, borderRadius: 6, border: '1px solid var(--c-border)' }}
              labelFormatter={(s) => {
                const row = rows.find((r) => r.step === Number(s));
                return `Step ${s}${row?.error ? ' — error' : ''}${row?.latency_ms != null ? ` · ${formatDuration(row.latency_ms)}` : ''}`;
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
}
