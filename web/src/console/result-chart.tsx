// A quick chart of a console result: pick the x and y columns, line or bars.
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { SqlResult } from '../../../schemas/api.js';
import { chartPoints, MAX_CHART_POINTS, numericColumns, type ChartKind, type ChartSpec } from '../lib/sql-result.js';

const axisTick = { fontSize: 11, fill: 'var(--c-muted)' };
const tooltipStyle = { fontSize: 12, borderRadius: 6, border: '1px solid var(--c-border)' };

function compact(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${+(v / 1e9).toFixed(1)}B`;
  if (a >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (a >= 1e4) return `${+(v / 1e3).toFixed(1)}k`;
  return `${+v.toFixed(3)}`;
}

function clip(s: string): string {
  return s.length > 22 ? `${s.slice(0, 21)}…` : s;
}

interface Props {
  result: SqlResult;
  spec: ChartSpec | null;
  onSpec: (s: ChartSpec) => void;
}

export function ResultChart({ result, spec, onSpec }: Props) {
  const nums = numericColumns(result.columns);
  if (!spec || nums.length === 0 || result.rows.length === 0) {
    return <div className="console-chart-empty muted small">No chart: the result needs a numeric column and at least one row.</div>;
  }
  const points = chartPoints(result, spec);
  const yName = result.columns[spec.y]?.name ?? 'y';
  const xName = result.columns[spec.x]?.name ?? 'x';
  const set = (patch: Partial<ChartSpec>) => onSpec({ ...spec, ...patch });
  const common = {
    data: points,
    margin: { top: 8, right: 16, bottom: 4, left: 4 },
  };
  // Up to 40 categories all get a label, slanted so that long names fit.
  const slanted = points.length > 8 && points.length <= 40 && points.some((p) => typeof p.x === 'string');
  const x = slanted ? (
    <XAxis dataKey="x" tick={{ ...axisTick, textAnchor: 'end' }} angle={-30} interval={0} height={84} tickFormatter={(v: unknown) => clip(String(v))} tickLine={false} axisLine={{ stroke: 'var(--c-grid)' }} name={xName} />
  ) : (
    <XAxis dataKey="x" tick={axisTick} tickLine={false} axisLine={{ stroke: 'var(--c-grid)' }} minTickGap={16} name={xName} />
  );
  const y = <YAxis tick={axisTick} tickLine={false} axisLine={false} width={56} tickFormatter={compact} />;
  const tip = <Tooltip contentStyle={tooltipStyle} formatter={(v) => [String(v), yName]} labelFormatter={(l) => `${xName}: ${String(l)}`} />;
  return (
    <div className="console-chart" data-testid="sql-result-chart">
      <div className="console-chart-controls">
        <label className="picker">
          <span className="picker-label">x</span>
          <select aria-label="Chart x column" value={spec.x} onChange={(e) => set({ x: Number(e.target.value) })}>
            {result.columns.map((c, i) => (
              <option key={i} value={i}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <label className="picker">
          <span className="picker-label">y</span>
          <select aria-label="Chart y column" value={spec.y} onChange={(e) => set({ y: Number(e.target.value) })}>
            {nums.map((i) => (
              <option key={i} value={i}>
                {result.columns[i].name}
              </option>
            ))}
          </select>
        </label>
        <div className="segmented" role="group" aria-label="Chart type">
          {(['bar', 'line'] as ChartKind[]).map((k) => (
            <button key={k} type="button" className={spec.kind === k ? 'active' : undefined} aria-pressed={spec.kind === k} onClick={() => set({ kind: k })}>
              {k === 'bar' ? 'Bars' : 'Line'}
            </button>
          ))}
        </div>
        {result.rows.length > MAX_CHART_POINTS && (
          <span className="muted small">first {MAX_CHART_POINTS.toLocaleString('en-US')} rows plotted</span>
        )}
      </div>
      <div className="console-chart-box">
        <ResponsiveContainer width="100%" height="100%">
          {spec.kind === 'line' ? (
            <LineChart {...common}>
              <CartesianGrid stroke="var(--c-grid)" vertical={false} />
              {x}
              {y}
              {tip}
              <Line type="monotone" dataKey="y" name={yName} stroke="var(--c-accent)" strokeWidth={2} dot={points.length <= 60} isAnimationActive={false} connectNulls />
            </LineChart>
          ) : (
            <BarChart {...common}>
              <CartesianGrid stroke="var(--c-grid)" vertical={false} />
              {x}
              {y}
              {tip}
              <Bar dataKey="y" name={yName} fill="var(--c-accent)" radius={[3, 3, 0, 0]} maxBarSize={48} isAnimationActive={false} />
            </BarChart>
          )}
        </ResponsiveContainer>
      </div>
    </div>
  );
}
