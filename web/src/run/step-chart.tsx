// Tokens and cost per step; error steps in red, loops shaded, the last step marked. Runs with
// more steps than MAX_BARS are drawn in bins of consecutive steps (a bin with an error is red); a
// drag across bars zooms into those steps, binned again, down to single steps. Clicking a bar
// opens its step (a bin: its first).
import { memo, useMemo, useState } from 'react';
import { Bar, CartesianGrid, Cell, ComposedChart, Line, ReferenceArea, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { LoopInfo } from '../../../schemas/api.js';
import { noVerticalLines } from '../components/chart-card.js';
import { niceTicks, stepAxisTickMarks } from '../lib/chart-data.js';
import { formatInt, formatTokens, formatUsd, formatUsdAxis } from '../lib/format.js';
import { binRows, type OutlineRow } from '../lib/step-outline.js';
import { displayStep, storedStep } from '../lib/step-label.js';
import { rangeOfDrag, rowsInRange, type StepRange } from '../lib/step-zoom.js';

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

/** The top bar of a bin, with a red cap above it when a step of the bin failed. */
function ErrorCapped(props: { x?: number; y?: number; width?: number; height?: number; fill?: string; payload?: OutlineRow }) {
  const { x = 0, y = 0, width = 0, height = 0, fill, payload } = props;
  return (
    <g>
      <rect x={x} y={y} width={width} height={Math.max(0, height)} fill={fill} />
      {payload && payload.errors > 0 && <rect x={x} y={y - 3} width={Math.max(width, 1)} height={3} fill="var(--c-failure)" data-testid="bin-error" />}
    </g>
  );
}

/** Drawn again only when its props change: the run page re-renders as step windows arrive. */
export const StepChart = memo(function StepChart({ rows: every, loops, onSelect }: { rows: OutlineRow[]; loops: LoopInfo[]; onSelect: (step: number) => void }) {
  const [zoom, setZoom] = useState<StepRange | null>(null);
  /** Drawn rows a drag started on and is over (indexes), while it lasts. */
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  const all = useMemo(() => rowsInRange(every, zoom), [every, zoom]);
  const rows = useMemo(() => binRows([...all], MAX_BARS), [all]);
  // Round numbers as the steps are shown (from 1), placed at the stored first step of the bar (a
  // bin) that holds them.
  const { xTicks, tickLabel } = useMemo(() => {
    const marks = stepAxisTickMarks(rows.map((r) => ({ step: displayStep(r.step), last: displayStep(r.last) })));
    return { xTicks: marks.map((m) => storedStep(m.at)), tickLabel: new Map(marks.map((m) => [storedStep(m.at), m.label])) };
  }, [rows]);
  const binned = rows.length < all.length;
  const canZoom = rows.length > 1;
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
  if (every.length === 0) return null;
  if (rows.length === 0) return null;
  const last = rows[rows.length - 1];
  const runEnd = every[every.length - 1].step;
  const indexOf = (state: { activeTooltipIndex?: unknown } | null): number | null => {
    const i = state?.activeTooltipIndex;
    return i === null || i === undefined || !rows[Number(i)] ? null : Number(i);
  };
  return (
    <section className="card chart-card step-chart" aria-label="Tokens and cost per step">
      <div className="card-head">
        <h3>Per step</h3>
        <span className="muted small" data-testid="step-chart-scale">
          {zoom ? `Steps ${formatInt(displayStep(zoom.from))}–${formatInt(displayStep(zoom.to))} of ${formatInt(every.length)}` : `${formatInt(every.length)} steps`}
          {binned ? `, ${formatInt(rows[0].last - rows[0].step + 1)} per bar` : ''}
          {canZoom && !zoom && binned ? ' · drag across bars to zoom' : ''}
        </span>
        {zoom && (
          <button type="button" className="btn btn-quiet btn-small" onClick={() => setZoom(null)}>
            Show all steps
          </button>
        )}
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
            onMouseDown={(state) => {
              const i = indexOf(state);
              if (i !== null) setDrag({ from: i, to: i });
            }}
            onMouseMove={(state) => {
              const i = indexOf(state);
              if (drag && i !== null && i !== drag.to) setDrag({ from: drag.from, to: i });
            }}
            onMouseUp={(state) => {
              const i = indexOf(state) ?? drag?.to ?? null;
              const from = drag?.from ?? i;
              setDrag(null);
              if (from === null || i === null) return;
              const range = rangeOfDrag(rows, from, i);
              if (range) setZoom(range);
              else onSelect(rows[i].step);
            }}
            onMouseLeave={() => setDrag(null)}
          >
            <CartesianGrid stroke="var(--c-grid)" vertical={false} verticalCoordinatesGenerator={noVerticalLines} />
            <XAxis dataKey="step" ticks={xTicks} tickFormatter={(v: number) => formatInt(tickLabel.get(v) ?? displayStep(v))} tick={axisTick} tickLine={false} axisLine={{ stroke: 'var(--c-grid)' }} minTickGap={16} />
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
            {last.last === runEnd && <ReferenceLine yAxisId="tok" x={last.step} stroke="var(--c-muted)" strokeDasharray="3 3" />}
            {drag && drag.from !== drag.to && (
              <ReferenceArea yAxisId="tok" x1={rows[Math.min(drag.from, drag.to)].step} x2={rows[Math.max(drag.from, drag.to)].step} fill="var(--c-accent)" fillOpacity={0.15} />
            )}
            <Tooltip
              contentStyle={{ fontSize: 12, borderRadius: 6, border: '1px solid var(--c-border)' }}
              labelFormatter={(s) => {
                const row = rows.find((r) => r.step === Number(s));
                if (!row) return `Step ${displayStep(Number(s))}`;
                const label = row.last > row.step ? `Steps ${displayStep(row.step)}–${displayStep(row.last)}` : `Step ${displayStep(row.step)}`;
                return `${label}${row.errors ? ` — ${row.errors > 1 ? `${row.errors} errors` : 'error'}` : ''}`;
              }}
              formatter={(v, name) => [name === 'Cost' ? formatUsd(Number(v)) : formatTokens(Number(v)), name]}
            />
            {/* A step with an error is a red bar; a bin of steps keeps its token colours and gets
                a red cap when any of its steps failed (in a long run most bins hold one, and
                red bars would hide the tokens). */}
            <Bar yAxisId="tok" dataKey="input_tokens" name="Input tokens" stackId="t" fill="var(--c-tokens-in)" cursor="pointer" isAnimationActive={false}>
              {rows.map((r) => (
                <Cell key={r.step} fill={r.error && !binned ? 'var(--c-failure)' : 'var(--c-tokens-in)'} />
              ))}
            </Bar>
            <Bar
              yAxisId="tok"
              dataKey="output_tokens"
              name="Output tokens"
              stackId="t"
              fill="var(--c-tokens-out)"
              cursor="pointer"
              isAnimationActive={false}
              shape={binned ? ErrorCapped : undefined}
            >
              {rows.map((r) => (
                <Cell key={r.step} fill={r.error && !binned ? 'var(--c-failure-dark)' : 'var(--c-tokens-out)'} />
              ))}
            </Bar>
            <Line yAxisId="usd" dataKey="cost_usd" name="Cost" stroke="var(--c-accent-2)" strokeWidth={1.5} dot={false} isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
    </section>
  );
});
