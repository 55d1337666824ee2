// Compare: two cohorts (e.g. model or agent version A vs B, from the URL: ?by=model&a=x&b=y)
// under the same filters, every metric side by side with deltas, intervals and significance,
// and how the mix of failure modes shifted.
import { useEffect, useMemo } from 'react';
import { useOutletContext, useSearchParams } from 'react-router-dom';
import { api } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import { CompareTable } from '../compare/compare-table.js';
import { CompletionChart, ModeShiftChart } from '../compare/compare-charts.js';
import { TableCard } from '../components/chart-card.js';
import { Empty, ErrorState, Loading } from '../components/states.js';
import type { FilterState } from '../hooks/use-filters.js';
import type { CompareReport, FilterOptions } from '../../../schemas/api.js';
import { COHORT_DIMENSIONS, COHORT_LABELS, cohortsToSearch, compareRows, formatP, modeShiftRows, parseCohorts, type CohortDimension, type Cohorts } from '../lib/compare-view.js';
import { rangeLabel } from '../lib/filters.js';
import { formatInt, formatPercent } from '../lib/format.js';
import { modeLabel } from '../lib/failures-view.js';

const OPTION_LISTS: Record<CohortDimension, keyof FilterOptions> = {
  model: 'models',
  agent_version: 'agent_versions',
  agent: 'agents',
  task_category: 'task_categories',
  environment: 'environments',
};

export function ComparePage() {
  const { filters, now, key } = useOutletContext<FilterState>();
  const [params, setParams] = useSearchParams();
  const cohorts = parseCohorts(params);
  const project = filters.dims.project;
  const opts = useApi(`filters:${project ?? ''}`, (signal) => api.filterOptions(project, { signal }));
  const values = opts.state.data ? (opts.state.data[OPTION_LISTS[cohorts.by]] as string[]) : [];

  const setCohorts = (c: Cohorts) => setParams((prev) => cohortsToSearch(c, prev));
  // Arriving without cohorts: the two values with most runs, so the page answers at once.
  const missing = !cohorts.a || !cohorts.b;
  const sizes = useApi(missing ? `breakdown:${cohorts.by}${key}` : null, (signal) => api.breakdown(filters, now, cohorts.by, { signal }));
  const biggest = sizes.state.data?.rows.map((r) => r.key) ?? [];
  useEffect(() => {
    if (!missing || biggest.length < 2) return;
    const [first, second] = biggest.filter((v) => v !== cohorts.a && v !== cohorts.b);
    const a = cohorts.a || first;
    const b = cohorts.b || (cohorts.a ? first : second);
    if (a && b) setParams((prev) => cohortsToSearch({ ...cohorts, a, b }, prev), { replace: true });
  }, [missing, biggest.join('\u0000'), cohorts, setParams]); // eslint-disable-line react-hooks/exhaustive-deps

  const ready = Boolean(cohorts.a && cohorts.b);
  const cmp = useApi(ready ? `compare:${cohorts.by}:${cohorts.a}:${cohorts.b}${key}` : null, (signal) =>
    api.compare(filters, now, { [cohorts.by]: cohorts.a }, { [cohorts.by]: cohorts.b }, { signal }),
  );
  const report = cmp.state.data;
  const rows = useMemo(() => (report ? compareRows(report) : []), [report]);
  const shifts = useMemo(() => (report ? modeShiftRows(report) : []), [report]);

  return (
    <div className="page">
      <div className="page-head">
        <h1>Compare</h1>
        <span className="page-sub">{rangeLabel(filters)} · the filters apply to both cohorts</span>
        {cmp.state.status === 'loading' && report && <Loading compact label="Updating…" />}
      </div>

      <section className="card cohort-pickers" aria-label="Cohorts">
        <label className="picker">
          <span className="picker-label">Compare by</span>
          <select value={cohorts.by} onChange={(e) => setCohorts({ by: e.target.value as CohortDimension, a: '', b: '' })} aria-label="Compare by">
            {COHORT_DIMENSIONS.map((d) => (
              <option key={d} value={d}>
                {COHORT_LABELS[d]}
              </option>
            ))}
          </select>
        </label>
        <CohortSelect side="a" value={cohorts.a} values={values} onChange={(v) => setCohorts({ ...cohorts, a: v })} />
        <span className="muted">vs</span>
        <CohortSelect side="b" value={cohorts.b} values={values} onChange={(v) => setCohorts({ ...cohorts, b: v })} />
        <button type="button" className="btn btn-quiet" onClick={() => setCohorts({ ...cohorts, a: cohorts.b, b: cohorts.a })} disabled={!ready}>
          Swap
        </button>
      </section>

      {opts.state.status === 'error' ? (
        <ErrorState error={opts.state.error} onRetry={opts.reload} />
      ) : !ready ? (
        opts.state.data && values.length < 2 && (sizes.state.status !== 'loading' || biggest.length < 2) ? (
          <Empty title={`Fewer than two values of ${COHORT_LABELS[cohorts.by].toLowerCase()} in this project`}>Pick another dimension to compare by.</Empty>
        ) : (
          <Loading label="Loading cohorts…" />
        )
      ) : cmp.state.status === 'error' ? (
        <ErrorState error={cmp.state.error} onRetry={cmp.reload} />
      ) : !report ? (
        <Loading label="Comparing…" />
      ) : report.a.runs === 0 || report.b.runs === 0 ? (
        <Empty title={`No runs for ${report.a.runs === 0 ? `A (${cohorts.a})` : `B (${cohorts.b})`} in this view`}>Widen the time range or pick another cohort.</Empty>
      ) : (
        <>
          <Headline report={report} cohorts={cohorts} />
          <div className="grid-2">
            <CompletionChart report={report} aLabel={cohorts.a} bLabel={cohorts.b} />
            {shifts.length ? <ModeShiftChart rows={shifts} /> : <Empty title="No failure modes in either cohort" />}
          </div>
          <TableCard title="Every metric" subtitle="green: better for B, red: worse; a difference a test calls noise counts as no change">
            <CompareTable rows={rows} aLabel={cohorts.a} bLabel={cohorts.b} />
          </TableCard>
          {shifts.length > 0 && (
            <TableCard title="Failure modes" subtitle="share of each cohort's failed runs">
              <table className="data-table" data-testid="mode-shift-table">
                <thead>
                  <tr>
                    <th>Mode</th>
                    <th className="num">A runs</th>
                    <th className="num">A share</th>
                    <th className="num">B runs</th>
                    <th className="num">B share</th>
                    <th className="num">Shift</th>
                    <th>Significance</th>
                  </tr>
                </thead>
                <tbody>
                  {shifts.map((s) => (
                    <tr key={s.mode}>
                      <td>{modeLabel(s.mode)}</td>
                      <td className="num">{formatInt(s.a_runs)}</td>
                      <td className="num">{formatPercent(s.a_share)}</td>
                      <td className="num">{formatInt(s.b_runs)}</td>
                      <td className="num">{formatPercent(s.b_share)}</td>
                      <td className="num">{s.shift_pp === null ? '—' : `${s.shift_pp > 0 ? '+' : ''}${s.shift_pp} pp`}</td>
                      <td>
                        <span className={s.significant ? 'sig sig-yes' : 'sig'}>{formatP(s.p_value)}</span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableCard>
          )}
        </>
      )}
    </div>
  );
}

function CohortSelect({ side, value, values, onChange }: { side: 'a' | 'b'; value: string; values: string[]; onChange: (v: string) => void }) {
  const all = value && !values.includes(value) ? [value, ...values] : values;
  return (
    <label className="picker picker-set">
      <span className={`cohort-tag cohort-${side}`}>{side.toUpperCase()}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)} aria-label={`Cohort ${side.toUpperCase()}`}>
        {!value && <option value="">Pick…</option>}
        {all.map((v) => (
          <option key={v} value={v}>
            {v || '(none)'}
          </option>
        ))}
      </select>
    </label>
  );
}

/** One sentence with the answer most people came for. */
function Headline({ report, cohorts }: { report: CompareReport; cohorts: Cohorts }) {
  const t = report.completion_test;
  const diff = t.difference;
  const sig = t.p_value < 0.05;
  return (
    <div className="notice notice-info" data-testid="compare-headline">
      Completion rate <b>{formatPercent(report.a.completion_rate)}</b> for A ({cohorts.a}, {formatInt(report.a.ended)} ended) vs{' '}
      <b>{formatPercent(report.b.completion_rate)}</b> for B ({cohorts.b}, {formatInt(report.b.ended)} ended):{' '}
      {diff === null ? 'no difference can be computed.' : sig ? <>B is {diff > 0 ? 'better' : 'worse'} by {formatPercent(Math.abs(diff))} points, significant ({formatP(t.p_value)}).</> : <>a difference of {formatPercent(Math.abs(diff))} points that may be noise ({formatP(t.p_value)}).</>}
    </div>
  );
}
