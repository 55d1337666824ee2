// Errors: the error messages of the runs in view grouped by template (their ids, numbers, paths
// and quoted values masked), most runs first, with what they touched and whether those runs
// failed; "new" marks the ones first seen in this window. A signature opens its runs.
import { useOutletContext } from 'react-router-dom';
import { api } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import { TableCard } from '../components/chart-card.js';
import { KpiTile } from '../components/kpi-tile.js';
import { Empty, ErrorState, Loading } from '../components/states.js';
import { ErrorsTable } from '../errors/errors-table.js';
import type { FilterState } from '../hooks/use-filters.js';
import { rangeLabel } from '../lib/filters.js';
import { formatInt } from '../lib/format.js';
import '../errors/errors.css';

const LIMIT = 200;

export function ErrorsPage() {
  const { filters, now, key, filterSearch } = useOutletContext<FilterState>();
  const report = useApi(`errors${key}`, (signal) => api.errors(filters, now, { limit: LIMIT }, { signal }));
  const data = report.state.data;
  const fresh = data?.items.filter((s) => s.new_in_window).length ?? 0;
  return (
    <div className="page">
      <div className="page-head">
        <h1>Errors</h1>
        <span className="page-sub">tool, step and run-end errors of the runs in view, grouped by signature · {rangeLabel(filters)}</span>
        {report.state.status === 'loading' && data && <Loading compact label="Updating…" />}
      </div>
      {report.state.status === 'error' ? (
        <ErrorState error={report.state.error} onRetry={report.reload} />
      ) : !data ? (
        <Loading label="Loading errors…" />
      ) : data.occurrences === 0 ? (
        <Empty title="No errors in this view">No step or tool call of the runs in view recorded an error ({rangeLabel(filters)}).</Empty>
      ) : (
        <>
          <div className="kpis">
            <KpiTile label="Signatures" value={formatInt(data.signatures)} detail="distinct error templates" />
            <KpiTile label="Errors" value={formatInt(data.occurrences)} detail="steps and run ends with an error" />
            <KpiTile label="Runs with errors" value={formatInt(data.runs)} detail="at least one error" />
            <KpiTile label="New" value={formatInt(fresh)} detail={filters.range === 'all' ? 'needs a time window' : 'first seen in this window'} />
          </div>
          <TableCard
            title="Error signatures"
            subtitle={`most runs first${data.items.length < data.signatures ? ` · top ${formatInt(data.items.length)} of ${formatInt(data.signatures)}` : ''} · click a row for examples`}
          >
            <ErrorsTable items={data.items} filters={filters} filterSearch={filterSearch} now={now} />
          </TableCard>
        </>
      )}
    </div>
  );
}
