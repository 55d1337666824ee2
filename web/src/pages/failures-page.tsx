// Failure modes: how runs fail, how that changes over time, where (by model, version, category)
// and example runs of each mode.
import { useMemo } from 'react';
import { useNavigate, useOutletContext, useSearchParams } from 'react-router-dom';
import { api } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import { KpiTile } from '../components/kpi-tile.js';
import { Empty, ErrorState, Loading } from '../components/states.js';
import { TableCard } from '../components/chart-card.js';
import { BreakdownTable, ExamplesTable } from '../failures/failure-tables.js';
import { ModeDistribution, ModeTrend } from '../failures/failure-charts.js';
import type { FilterState } from '../hooks/use-filters.js';
import { colorMap } from '../lib/chart-colors.js';
import { breakdownRows, modeLabel, modeOrder, modeTrendRows } from '../lib/failures-view.js';
import { linkTo, rangeLabel, withDimension, withWindow, type Dimension } from '../lib/filters.js';
import { formatInt, formatPercent } from '../lib/format.js';

const BY_OPTIONS: Array<{ dim: Dimension; label: string }> = [
  { dim: 'model', label: 'Model' },
  { dim: 'agent_version', label: 'Agent version' },
  { dim: 'agent', label: 'Agent' },
  { dim: 'task_category', label: 'Task category' },
  { dim: 'environment', label: 'Environment' },
];

export function FailuresPage() {
  const { filters, now, key, filterSearch } = useOutletContext<FilterState>();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const by = (BY_OPTIONS.find((o) => o.dim === params.get('by'))?.dim ?? 'model') as Dimension;
  const { state, reload } = useApi(`failures:${by}${key}`, (signal) => api.failureModes(filters, now, by, 6, { signal }));
  const totals = useApi(`breakdown:${by}${key}`, (signal) => api.breakdown(filters, now, by, { signal }));
  const report = state.data;
  const ended = useMemo(() => new Map((totals.state.data?.rows ?? []).map((r) => [r.key, r.ended])), [totals.state.data]);

  const modes = useMemo(() => (report ? modeOrder(report) : []), [report]);
  const colors = useMemo(() => colorMap(modes), [modes]);
  const trend = useMemo(() => (report ? modeTrendRows(report, modes) : []), [report, modes]);
  const breakdown = useMemo(() => (report ? breakdownRows(report, modes, ended) : []), [report, modes, ended]);

  const setBy = (v: string) =>
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      next.set('by', v);
      return next;
    });

  return (
    <div className="page">
      <div className="page-head">
        <h1>Failure modes</h1>
        <span className="page-sub">{rangeLabel(filters)}</span>
        {state.status === 'loading' && report && <Loading compact label="Updating…" />}
      </div>
      {state.status === 'error' ? (
        <ErrorState error={state.error} onRetry={reload} />
      ) : !report ? (
        <Loading label="Loading failure modes…" />
      ) : report.failed === 0 ? (
        <Empty title={report.runs ? 'No failed runs in this view' : 'No runs in this view'}>
          {report.runs ? `All ${formatInt(report.runs)} runs that ended succeeded (or are not analysed yet).` : 'Widen the time range or clear filters.'}
        </Empty>
      ) : (
        <>
          <div className="kpis">
            <KpiTile label="Failed runs" value={formatInt(report.failed)} detail={`of ${formatInt(report.runs)} ended · ${formatPercent(report.failed / Math.max(1, report.runs))}`} to={linkTo('/runs', filters)} />
            <KpiTile
              label="Top mode"
              value={modeLabel(modes[0])}
              detail={`${formatInt(report.modes.find((m) => m.mode === modes[0])?.runs)} runs · ${formatPercent(report.modes.find((m) => m.mode === modes[0])?.share)} of failed`}
              to={linkTo('/runs', withDimension(filters, 'failure_mode', modes[0]))}
            />
            <KpiTile label="Modes seen" value={formatInt(modes.length)} detail="distinct failure modes" />
          </div>
          <div className="grid-2">
            <ModeDistribution report={report} colors={colors} onSelect={(m) => navigate(linkTo('/runs', withDimension(filters, 'failure_mode', m)))} />
            {trend.length > 0 ? (
              <ModeTrend
                rows={trend}
                modes={modes}
                colors={colors}
                bucketSeconds={report.over_time.bucket_seconds}
                onSelect={(r) => navigate(linkTo('/runs', withWindow(filters, r.from, r.to)))}
              />
            ) : (
              <Empty title="No trend in this range" />
            )}
          </div>
          <TableCard
            title="Breakdown"
            subtitle="share of each group's ended runs that failed this way · click a cell for those runs"
            actions={
              <label className="picker">
                <span className="picker-label">By</span>
                <select value={by} onChange={(e) => setBy(e.target.value)} aria-label="Break down by">
                  {BY_OPTIONS.map((o) => (
                    <option key={o.dim} value={o.dim}>
                      {o.label}
                    </option>
                  ))}
                </select>
              </label>
            }
          >
            {breakdown.length ? <BreakdownTable rows={breakdown} modes={modes} colors={colors} by={by} filters={filters} /> : <Empty title="Nothing to break down" />}
          </TableCard>
          <TableCard title="Example runs per mode" subtitle="the most recent runs of each mode · click one to open its trajectory">
            <ExamplesTable report={report} colors={colors} filters={filters} filterSearch={filterSearch} />
          </TableCard>
        </>
      )}
    </div>
  );
}
