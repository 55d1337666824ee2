// Runs: the table of runs in view, sortable, searchable, paged with a cursor.
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useOutletContext, useSearchParams } from 'react-router-dom';
import type { RunSummary } from '../../../schemas/api.js';
import { api, ApiError, type RunSortKey } from '../api/client.js';
import { Empty, ErrorState, Loading } from '../components/states.js';
import { StatusBadge } from '../components/status-badge.js';
import type { FilterState } from '../hooks/use-filters.js';
import { activeFilterCount, rangeLabel } from '../lib/filters.js';
import { agentLabel, formatDuration, formatInt, formatRelative, formatTimestamp, formatUsd, middleEllipsis } from '../lib/format.js';
import { nextSort, parseSort, writeSort, type RunsSort } from '../lib/runs-view.js';
import '../run/runs-table.css';

const PAGE_SIZE = 50;

interface Column {
  key: string;
  label: string;
  sort?: RunSortKey;
  className?: string;
}

const COLUMNS: Column[] = [
  { key: 'status', label: 'Status' },
  { key: 'run_id', label: 'Run', sort: 'run_id' },
  { key: 'task', label: 'Task' },
  { key: 'failure_mode', label: 'Failure mode' },
  { key: 'model', label: 'Model · agent' },
  { key: 'steps', label: 'Steps', sort: 'steps', className: 'num' },
  { key: 'cost', label: 'Cost', sort: 'cost_usd', className: 'num' },
  { key: 'duration', label: 'Duration', sort: 'duration_ms', className: 'num' },
  { key: 'loops', label: 'Loops', sort: 'loops', className: 'num' },
  { key: 'started', label: 'Started', sort: 'started_at' },
];

interface PagesState {
  key: string;
  runs: RunSummary[];
  nextCursor: string | null;
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
  const [params, setParams] = useSearchParams();
  const sort = parseSort(params);
  const navigate = useNavigate();
  const key = `${filterKey}|${sort.sort}|${sort.order}`;

  const [pages, setPages] = useState<PagesState>({ key: '', runs: [], nextCursor: null, status: 'loading', loadingMore: false });
  const [nonce, setNonce] = useState(0);
  const moreCtrl = useRef<AbortController | null>(null);

  useEffect(() => {
    const ctrl = new AbortController();
    moreCtrl.current?.abort();
    setPages((p) => ({ ...p, key, status: 'loading', loadingMore: false, error: undefined }));
    api.runs(filters, now, { ...sort, limit: PAGE_SIZE }, { signal: ctrl.signal }).then(
      (page) => {
        if (!ctrl.signal.aborted) setPages({ key, runs: page.runs, nextCursor: page.next_cursor, status: 'ok', loadingMore: false });
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
    api.runs(filters, now, { ...sort, limit: PAGE_SIZE, cursor }, { signal: ctrl.signal }).then(
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
  }, [pages.nextCursor, pages.loadingMore, filters, now, sort]);

  const setSort = (s: RunsSort) => setParams((prev) => writeSort(prev, s));
  const openRun = (run: RunSummary) => navigate(runLink(run, filterSearch));


  return (
    <div className="page">
      <div className="page-head">
        <h1>Runs</h1>
        <span className="muted">{rangeLabel(filters)}</span>
        <SearchBox value={filters.q ?? ''} onChange={(q) => setFilters({ ...filters, q: q || undefined })} />
      </div>

      {pages.status === 'error' && pages.error ? (
        <ErrorState error={pages.error} onRetry={() => setNonce((n) => n + 1)} />
      ) : pages.status === 'loading' && pages.runs.length === 0 ? (
        <Loading label="Loading runs…" />
      ) : pages.status === 'ok' && pages.runs.length === 0 ? (
        <Empty title={filters.q ? `No runs match “${filters.q}”` : 'No runs in this view'}>
          {activeFilterCount(filters) > 0 || filters.range !== 'all'
            ? 'Try a wider time range or fewer filters.'
            : 'Runs appear here as soon as agents send events.'}
        </Empty>
      ) : (
        <div className={pages.status === 'loading' ? 'card table-card is-updating' : 'card table-card'}>
          <table className="runs-table">
            <thead>
              <tr>
                {COLUMNS.map((c) => (
                  <th key={c.key} className={c.className} aria-sort={c.sort && sort.sort === c.sort ? (sort.order === 'asc' ? 'ascending' : 'descending') : undefined}>
                    {c.sort ? (
                      <button type="button" className={sort.sort === c.sort ? 'sort active' : 'sort'} onClick={() => setSort(nextSort(sort, c.sort!))}>
                        {c.label}
                        <span className="sort-arrow" aria-hidden="true">
                          {sort.sort === c.sort ? (sort.order === 'asc' ? '▲' : '▼') : '↕'}
                        </span>
                      </button>
                    ) : (
                      c.label
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {pages.runs.map((r) => (
                <RunRow key={r.run_id} run={r} now={now} search={filterSearch} onOpen={openRun} />
              ))}
            </tbody>
          </table>
          <div className="table-foot">
            <span className="muted small">
              {formatInt(pages.runs.length)} run{pages.runs.length === 1 ? '' : 's'} shown{pages.nextCursor ? ', more available' : ''}
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
          </div>
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

function RunRow({ run: r, now, search, onOpen }: { run: RunSummary; now: Date; search: string; onOpen: (r: RunSummary) => void }) {
  return (
    <tr
      className="clickable"
      data-run-id={r.run_id}
      onClick={(e) => {
        if ((e.target as HTMLElement).closest('a')) return;
        onOpen(r);
      }}
    >
      <td>
        <StatusBadge status={r.status} />
      </td>
      <td className="mono">
        <Link to={runLink(r, search)} title={r.run_id}>
          {middleEllipsis(r.run_id, 22)}
        </Link>
      </td>
      <td className="task-cell">
        <div className="truncate" title={r.task_id}>
          {r.task_id || <span className="muted">—</span>}
        </div>
        {r.task_category && <div className="muted small">{r.task_category}</div>}
      </td>
      <td className="truncate" title={r.failure_rule ? `${r.failure_mode} (${r.failure_rule})` : undefined}>
        {r.failure_mode ? <span className="badge badge-mode">{r.failure_mode}</span> : <span className="muted">—</span>}
        {r.suspicious && <span className="badge badge-warn" title="Success flagged as suspicious">suspicious</span>}
      </td>
      <td className="truncate" title={`${r.model} · ${agentLabel(r.agent_name, r.agent_version)}`}>
        {r.model || <span className="muted">—</span>}
        <span className="muted small agent-line">{agentLabel(r.agent_name, r.agent_version)}</span>
      </td>
      <td className="num">{formatInt(r.steps)}</td>
      <td className="num" title={r.cost_estimated ? 'Partly estimated from the model price table' : undefined}>
        {formatUsd(r.cost_usd)}
        {r.cost_estimated && <span className="est">*</span>}
      </td>
      <td className="num">{r.status === 'running' ? <span className="muted">running</span> : formatDuration(r.duration_ms)}</td>
      <td className="num">{r.loops ? <span className="loops-count">{formatInt(r.loops)}</span> : <span className="muted">—</span>}</td>
      <td className="nowrap" title={r.started_at}>
        {formatTimestamp(r.started_at, { now })}
        <div className="muted small">{formatRelative(r.started_at, now)}</div>
      </td>
    </tr>
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
