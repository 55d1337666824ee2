// Runs: the table of runs in view, sortable, searchable, paged with a cursor.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useOutletContext } from 'react-router-dom';
import type { RunSummary } from '../../../schemas/api.js';
import { api, ApiError, type RunSortKey } from '../api/client.js';
import { DataTable, type Column } from '../components/data-table.js';
import { Empty, ErrorState, Loading } from '../components/states.js';
import { StatusBadge } from '../components/status-badge.js';
import { TimesEstimatedBadge } from '../components/times-estimated.js';
import { ModeBadge } from '../components/mode-badge.js';
import { modeLabel } from '../lib/failure-modes.js';
import type { FilterState } from '../hooks/use-filters.js';
import { activeFilterCount, linkTo, rangeLabel } from '../lib/filters.js';
import { agentLabel, formatDuration, formatInt, formatRelative, formatTimestamp, formatUsd, middleEllipsis } from '../lib/format.js';
import { parseSort, writeSort, type RunsSort } from '../lib/runs-view.js';
import '../run/runs-table.css';
import { useUrlParams } from '../hooks/use-url-params.js';
import { useApi } from '../api/use-api.js';

const PAGE_SIZE = 50;

interface PagesState {
  key: string;
  runs: RunSummary[];
  nextCursor: string | null;
  /** Runs matching the filters in all, when the API says. */
  total?: number;
  status: 'loading' | 'ok' | 'error';
  loadingMore: boolean;
  error?: ApiError;
}

function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, 'client_error', String(err));
}

export function RunsPage() {
  const fs = useOutletContext<FilterState>();
  const { filters, now, key: filterKey, setFilters, filterSearch } = fs;
  const [params, setParams] = useUrlParams();
  const sort = parseSort(params);
  // From the Errors page: only the runs with an error of this signature.
  const errorSignature = params.get('error_signature') ?? undefined;
  const navigate = useNavigate();
  const key = `${filterKey}|${sort.sort}|${sort.order}|${errorSignature ?? ''}`;

  const [pages, setPages] = useState<PagesState>({ key: '', runs: [], nextCursor: null, status: 'loading', loadingMore: false });
  const [nonce, setNonce] = useState(0);
  const moreCtrl = useRef<AbortController | null>(null);

  useEffect(() => {
    const ctrl = new AbortController();
    moreCtrl.current?.abort();
    setPages((p) => ({ ...p, key, status: 'loading', loadingMore: false, error: undefined }));
    api.runs(filters, now, { ...sort, limit: PAGE_SIZE, errorSignature }, { signal: ctrl.signal }).then(
      (page) => {
        if (!ctrl.signal.aborted) setPages({ key, runs: page.runs, nextCursor: page.next_cursor, total: page.total, status: 'ok', loadingMore: false });
      },
      (err: unknown) => {
        if (!ctrl.signal.aborted) setPages((p) => ({ ...p, status: 'error', error: toApiError(err) }));
      },
    );
    return () => ctrl.abort();
    // `key` captures filters, now and sort.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, nonce]);

  const loadMore = useCallback(() => {
    if (!pages.nextCursor || pages.loadingMore) return;
    const ctrl = new AbortController();
    moreCtrl.current = ctrl;
    const cursor = pages.nextCursor;
    setPages((p) => ({ ...p, loadingMore: true, error: undefined }));
    api.runs(filters, now, { ...sort, limit: PAGE_SIZE, cursor, errorSignature }, { signal: ctrl.signal }).then(
      (page) => {
        if (ctrl.signal.aborted) return;
        setPages((p) => {
          const seen = new Set(p.runs.map((r) => r.run_id));
          return { ...p, runs: [...p.runs, ...page.runs.filter((r) => !seen.has(r.run_id))], nextCursor: page.next_cursor, loadingMore: false };
        });
      },
      (err: unknown) => {
        if (!ctrl.signal.aborted) setPages((p) => ({ ...p, loadingMore: false, error: toApiError(err) }));
      },
    );
  }, [pages.nextCursor, pages.loadingMore, filters, now, sort, errorSignature]);

  const setSort = (s: RunsSort) => setParams((prev) => writeSort(prev, s));
  const openRun = (run: RunSummary) => navigate(runLink(run, filterSearch));
  const columns = useMemo(() => runColumns(now, filterSearch), [now, filterSearch]);
  const emptyTitle = filters.q ? `No runs match “${filters.q}”` : 'No runs in this view';
  // The same runs' steps and tool calls searched for the text typed here (or for nothing yet).
  const inSteps = linkTo('/search', { ...filters, q: undefined }, filters.q ? { text: filters.q } : {});

  return (
    <div className="page">
      <div className="page-head">
        <h1>Runs</h1>
        <span className="muted">{rangeLabel(filters)}</span>
        {pages.status === 'ok' && pages.total !== undefined && (
          <span className="runs-total" data-testid="runs-total">
            {formatInt(pages.total)} run{pages.total === 1 ? '' : 's'}
          </span>
        )}
        <SearchBox value={filters.q ?? ''} onChange={(q) => setFilters({ ...filters, q: q || undefined })} />
        <Link to={inSteps} className="btn btn-quiet" title="Search the steps and tool calls of the runs in view (press / anywhere)" data-testid="runs-search-steps">
          Search in steps…
        </Link>
      </div>

      {errorSignature && (
        <SignatureNotice
          signature={errorSignature}
          project={filters.dims.project}
          onClear={() =>
            setParams((prev) => {
              const next = new URLSearchParams(prev);
              next.delete('error_signature');
              return next;
            })
          }
        />
      )}
      {pages.status === 'error' && pages.error ? (
        <ErrorState error={pages.error} onRetry={() => setNonce((n) => n + 1)} />
      ) : pages.status === 'loading' && pages.runs.length === 0 ? (
        <Loading label="Loading runs…" />
      ) : pages.status === 'ok' && pages.runs.length === 0 ? (
        <Empty title={emptyTitle}>
          {activeFilterCount(filters) > 0 || filters.range !== 'all'
            ? 'Try a wider time range or fewer filters.'
            : 'Runs appear here as soon as agents send events.'}
          {filters.q && (
            <>
              {' '}
              <Link to={inSteps}>Search the steps and tool calls for “{filters.q}”</Link>
            </>
          )}
        </Empty>
      ) : (
        <div className={pages.status === 'loading' ? 'card table-card is-updating' : 'card table-card'}>
          <DataTable
            columns={columns}
            rows={pages.runs}
            rowKey={(r) => `${r.project}/${r.run_id}`}
            rowProps={(r) => ({ 'data-run-id': r.run_id })}
            onRowClick={openRun}
            serverSort={{ state: { key: sort.sort, dir: sort.order }, onChange: (s) => setSort({ sort: s.key as RunSortKey, order: s.dir }) }}
            empty={emptyTitle}
            className="runs-table"
            foot={
              <>
                <span className="muted small">
                  {formatInt(pages.runs.length)}
                  {pages.total !== undefined ? ` of ${formatInt(pages.total)}` : ''} run{(pages.total ?? pages.runs.length) === 1 ? '' : 's'} shown
                  {pages.nextCursor && pages.total === undefined ? ', more available' : ''}
                </span>
                {pages.runs.some((r) => r.cost_estimated) && (
                  <span className="muted small">
                    <span className="est">*</span> cost partly estimated from the model price table
                  </span>
                )}
                {pages.error && pages.status === 'ok' && <span className="error-text small">{pages.error.message}</span>}
                {pages.nextCursor && (
                  <button type="button" className="btn" onClick={loadMore} disabled={pages.loadingMore}>
                    {pages.loadingMore ? 'Loading…' : 'Load more'}
                  </button>
                )}
              </>
            }
          />
        </div>
      )}
    </div>
  );
}

/** The run page of a run; names the project when it is not the default one (run ids are per project). */
function runLink(r: RunSummary, filterSearch: string) {
  const params = new URLSearchParams(filterSearch);
  if (r.project && r.project !== 'default') params.set('project', r.project);
  const search = params.toString();
  return { pathname: `/runs/${encodeURIComponent(r.run_id)}`, search: search ? `?${search}` : '' };
}

/** The runs table's columns; the sortable ones carry the API's sort key (sorting is the API's). */
function runColumns(now: Date, search: string): Column<RunSummary>[] {
  return [
    { id: 'status', header: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
    {
      id: 'run_id',
      header: 'Run',
      sortKey: 'run_id',
      className: 'mono',
      cell: (r) => (
        <Link to={runLink(r, search)} title={r.run_id}>
          {middleEllipsis(r.run_id, 22)}
        </Link>
      ),
    },
    {
      id: 'task',
      header: 'Task',
      className: 'task-cell',
      cell: (r) => (
        <>
          <div className="truncate" title={r.task_id}>
            {r.task_id || <span className="muted">—</span>}
          </div>
          {r.task_category && <div className="muted small">{r.task_category}</div>}
        </>
      ),
    },
    {
      id: 'failure_mode',
      header: 'Failure mode',
      className: 'truncate',
      cellProps: (r) => ({ title: r.failure_rule ? `${modeLabel(r.failure_mode)} (rule ${r.failure_rule})` : undefined }),
      cell: (r) => (
        <>
          {r.failure_mode ? <ModeBadge mode={r.failure_mode} title="" /> : <span className="muted">—</span>}
          {r.suspicious && (
            <span className="badge badge-warn" title="Success flagged as suspicious">
              suspicious
            </span>
          )}
        </>
      ),
    },
    {
      id: 'model',
      header: 'Model · agent',
      className: 'truncate',
      cellProps: (r) => ({ title: `${r.model} · ${agentLabel(r.agent_name, r.agent_version)}` }),
      cell: (r) => (
        <>
          {r.model || <span className="muted">—</span>}
          <span className="muted small agent-line">{agentLabel(r.agent_name, r.agent_version)}</span>
        </>
      ),
    },
    { id: 'steps', header: 'Steps', sortKey: 'steps', numeric: true, cell: (r) => formatInt(r.steps) },
    {
      id: 'cost',
      header: 'Cost',
      sortKey: 'cost_usd',
      numeric: true,
      cellProps: (r) => ({ title: r.cost_estimated ? 'Partly estimated from the model price table' : undefined }),
      cell: (r) => (
        <>
          {formatUsd(r.cost_usd)}
          {r.cost_estimated && <span className="est">*</span>}
        </>
      ),
    },
    { id: 'duration', header: 'Duration', sortKey: 'duration_ms', numeric: true, cell: (r) => (r.status === 'running' ? <span className="muted">running</span> : formatDuration(r.duration_ms)) },
    { id: 'loops', header: 'Loops', sortKey: 'loops', numeric: true, cell: (r) => (r.loops ? <span className="loops-count">{formatInt(r.loops)}</span> : <span className="muted">—</span>) },
    {
      id: 'started',
      header: 'Started',
      sortKey: 'started_at',
      firstDir: 'desc',
      className: 'nowrap',
      cellProps: (r) => ({ title: r.started_at }),
      cell: (r) => (
        <>
          {formatTimestamp(r.started_at, { now })}
          <div className="muted small">
            {formatRelative(r.started_at, now)}
            {r.times_estimated && <TimesEstimatedBadge />}
          </div>
        </>
      ),
    },
  ];
}

/** Which error the runs are narrowed to (its template), and a way out. */
function SignatureNotice({ signature, project, onClear }: { signature: string; project: string | undefined; onClear: () => void }) {
  // Its template, over all time (the window in view may hold none of its errors).
  const found = useApi(`error-signature:${project ?? ''}:${signature}`, (signal) => api.errors({ dims: { project }, tags: [], range: 'all' }, new Date(), { signature }, { signal }));
  const template = found.state.data?.items[0]?.template;
  return (
    <div className="notice" role="status" data-testid="signature-notice">
      Runs with the error <span className="mono">{template ?? signature}</span>{' '}
      <button type="button" className="link-btn" onClick={onClear}>
        Show all runs
      </button>
    </div>
  );
}

/** Search by run or task id; writes to the URL after a short pause in typing. */
function SearchBox({ value, onChange }: { value: string; onChange: (q: string) => void }) {
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  useEffect(() => setText(value), [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const commit = (q: string) => {
    clearTimeout(timer.current);
    if (q.trim() !== value) onChangeRef.current(q.trim());
  };
  return (
    <form
      className="search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        commit(text);
      }}
    >
      <input
        type="search"
        placeholder="Search run or task id…"
        aria-label="Search runs"
        value={text}
        onChange={(e) => {
          const q = e.target.value;
          setText(q);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => commit(q), 350);
        }}
      />
    </form>
  );
}
