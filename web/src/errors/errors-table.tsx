// Error signatures, most runs first: the template (its masked parts as chips), how often and in
// how many runs, the share of those runs that failed, a trend over the window, first and last
// seen, tools and models. A row opens its examples; "runs" opens the Runs page on the signature.
import { useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import type { ErrorSignature } from '../../../schemas/api.js';
import { DataTable, type Column } from '../components/data-table.js';
import { linkTo, runLink, type Filters } from '../lib/filters.js';
import { failedShare, templatePieces, trendHeights } from '../lib/errors-view.js';
import { formatInt, formatPercent, formatRelative } from '../lib/format.js';
import { displayStep } from '../lib/step-label.js';

export function ErrorsTable({ items, filters, filterSearch, now }: { items: ErrorSignature[]; filters: Filters; filterSearch: string; now: Date }) {
  const [open, setOpen] = useState<string | null>(null);
  const columns = useMemo<Column<ErrorSignature>[]>(
    () => [
      {
        id: 'template',
        header: 'Error',
        className: 'error-template-cell',
        cell: (s) => (
          <span className="error-template">
            {s.new_in_window && <span className="badge badge-new" title="First seen in this window">new</span>}
            <Template template={s.template} />
          </span>
        ),
        sortValue: (s) => s.template,
      },
      { id: 'occurrences', header: 'Times', numeric: true, cell: (s) => formatInt(s.occurrences), sortValue: (s) => s.occurrences, headerProps: { title: 'Steps with this error' } },
      {
        id: 'runs',
        header: 'Runs',
        numeric: true,
        cell: (s) => (
          <Link to={linkTo('/runs', filters, { error_signature: s.signature })} title="The runs with this error" onClick={(e) => e.stopPropagation()}>
            {formatInt(s.runs)}
          </Link>
        ),
        sortValue: (s) => s.runs,
      },
      {
        id: 'failed',
        header: 'Failed after',
        numeric: true,
        cell: (s) => formatPercent(failedShare(s), 0),
        cellProps: (s) => ({ title: `${formatInt(s.failed_runs)} of ${formatInt(s.runs)} runs failed` }),
        sortValue: (s) => failedShare(s) ?? -1,
      },
      { id: 'trend', header: 'Trend', cell: (s) => <Trend trend={s.trend} />, headerProps: { title: 'Occurrences over the window' } },
      { id: 'first', header: 'First seen', className: 'nowrap muted', cell: (s) => formatRelative(s.first_seen, now), sortValue: (s) => Date.parse(s.first_seen ?? '') || 0 },
      { id: 'last', header: 'Last seen', className: 'nowrap muted', cell: (s) => formatRelative(s.last_seen, now), sortValue: (s) => Date.parse(s.last_seen ?? '') || 0, firstDir: 'desc' },
      { id: 'tools', header: 'Tools', className: 'truncate', cell: (s) => s.tools.join(', ') || '—', cellProps: (s) => ({ title: s.tools.join(', ') }) },
      { id: 'models', header: 'Models', className: 'truncate', cell: (s) => s.models.join(', '), cellProps: (s) => ({ title: s.models.join(', ') }) },
    ],
    [filters, now],
  );
  return (
    <DataTable
      columns={columns}
      rows={items}
      rowKey={(s) => s.signature}
      rowProps={(s) => ({ 'data-signature': s.signature, 'aria-expanded': open === s.signature })}
      onRowClick={(s) => setOpen((o) => (o === s.signature ? null : s.signature))}
      rowDetail={(s) => (open === s.signature ? <Examples s={s} filterSearch={filterSearch} now={now} /> : null)}
      detailClassName="error-examples-row"
      defaultSort={{ key: 'runs', dir: 'desc' }}
      pageSize={50}
      empty="No errors in this view"
      testId="errors-table"
    />
  );
}

function Template({ template }: { template: string }) {
  return (
    <span className="mono">
      {templatePieces(template).map((p, i) => (p.placeholder ? <span key={i} className="placeholder">{p.text}</span> : <span key={i}>{p.text}</span>))}
    </span>
  );
}

function Trend({ trend }: { trend: number[] }) {
  const heights = trendHeights(trend);
  return (
    <svg className="error-trend" width={trend.length * 5} height={18} role="img" aria-label={`occurrences over the window: ${trend.join(', ')}`}>
      {heights.map((h, i) => (
        <rect key={i} x={i * 5} y={18 - Math.max(h > 0 ? 2 : 0, h * 18)} width={4} height={Math.max(h > 0 ? 2 : 0, h * 18)} />
      ))}
    </svg>
  );
}

function Examples({ s, filterSearch, now }: { s: ErrorSignature; filterSearch: string; now: Date }) {
  return (
    <div className="error-examples" data-testid="error-examples">
      <div className="muted small">
        Latest {s.examples.length === 1 ? 'example' : `${s.examples.length} examples`} · signature <span className="mono">{s.signature}</span>
      </div>
      <ul>
        {s.examples.map((e, i) => (
          <li key={i}>
            <Link to={runLink(e.run_id, filterSearch, e.project, e.step)}>
              {e.run_id}
              {e.step !== null ? ` · step ${displayStep(e.step)}` : ''}
              {e.tool ? ` · ${e.tool}` : ''}
              {e.source === 'run_end' ? ' · run end' : e.source === 'final_observation' ? ' · final observation' : ''}
            </Link>
            <span className="muted small"> {formatRelative(e.at, now)}</span>
            <pre className="error-message">{e.message}</pre>
          </li>
        ))}
      </ul>
    </div>
  );
}
