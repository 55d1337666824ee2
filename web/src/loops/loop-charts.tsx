// Loops: waste per kind, per model and per tool, as horizontal bars.
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { LoopGroups } from '../../../schemas/api.js';
import { axisTick, ChartCard, gridStroke, barClick, tooltipStyle } from '../components/chart-card.js';
import { seriesColor } from '../lib/chart-colors.js';
import { formatInt, formatTokens, formatUsd, formatUsdAxis } from '../lib/format.js';
import { toolLabel } from '../lib/loops-view.js';

type GroupRow = LoopGroups['rows'][number] & { label: string };

/** Waste cost per group (model or tool), largest first; click a bar to narrow the page to it. */
export function LoopGroupChart({
  title,
  subtitle,
  groups,
  onSelect,
  testId,
  color = seriesColor(0),
}: {
  title: string;
  subtitle: string;
  groups: LoopGroups;
  onSelect?: (key: string) => void;
  testId: string;
  color?: string;
}) {
  const rows: GroupRow[] = groups.rows.slice(0, 12).map((r) => ({ ...r, label: groups.by === 'tool' ? toolLabel(r.key) : r.key }));
  const height = Math.max(180, rows.length * 24 + 48);
  return (
    <ChartCard title={title} subtitle={subtitle} testId={testId} height={height}>
      <ResponsiveContainer width="100%" height="100%">
          <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 56, bottom: 0, left: 8 }}>
            <CartesianGrid stroke={gridStroke} horizontal={false} />
            <XAxis type="number" tickFormatter={(v: number) => formatUsdAxis(v)} tick={axisTick} tickLine={false} axisLine={false} />
            <YAxis type="category" dataKey="label" width={150} tick={axisTick} tickLine={false} axisLine={false} interval={0} />
            <Tooltip
              contentStyle={tooltipStyle}
              formatter={(v, _n, item) => {
                const r = item.payload as GroupRow;
                return [`${formatUsd(Number(v))} · ${formatInt(r.loops)} loops in ${formatInt(r.runs)} runs · ${formatTokens(r.tokens)} tokens`, 'Waste'];
              }}
            />
            <Bar
              dataKey="cost_usd"
              name="Waste"
              cursor={onSelect ? 'pointer' : undefined}
              onClick={onSelect ? barClick(rows, (r) => onSelect(r.key)) : undefined}
              isAnimationActive={false}
              label={{ position: 'right', fontSize: 11, fill: 'var(--c-muted)', formatter: (v: unknown) => formatUsd(Number(v)) }}
              fill={color}
            />
          </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}
