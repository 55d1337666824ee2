// The dashboard's one typed client of the HTTP API (/api/v1). Every request goes through
// `getJson`, which turns non-2xx answers into an ApiError carrying the server's code/message.
import type { FailuresReport, FilterOptions, Overview, RunDetail, RunsPage, StepIndex, StepWindow, Timeseries } from '../../../schemas/api.js';
import type { SavedQuery, SavedQueryList, SqlResult, SqlSchema } from '../../../schemas/api.js';
import type { Breakdown, CompareReport, CostSpikesReport, LoopGroups, LoopsReport, ProjectList } from '../../../schemas/api.js';
import type { ChangeReport, ErrorsReport, RunFindAnswer, SearchAnswer } from '../../../schemas/api.js';
import type { CohortGraph, RunGraph } from '../../../schemas/tool-graph.js';
import { filtersToApiParams, type Filters } from '../lib/filters.js';
import { buildQuery } from '../lib/query-string.js';
import { searchApiParams, type SearchQuery } from '../lib/search-view.js';
import { authHeaders, noticeUnauthorized } from './auth-session.js';

export const API_BASE = '/api/v1';

/** An API failure: HTTP status plus the server's error code and message. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }

  /** Status 0 means the request never got an HTTP answer (server down, network). */
  get isNetwork(): boolean {
    return this.status === 0;
  }

  get isNotFound(): boolean {
    return this.status === 404;
  }
}

function isErrorBody(v: unknown): v is { error: { code?: unknown; message?: unknown } } {
  return typeof v === 'object' && v !== null && typeof (v as { error?: unknown }).error === 'object' && (v as { error: unknown }).error !== null;
}

/** Maps an HTTP answer that is not OK to an ApiError (exported for tests). */
export function errorFromResponse(status: number, statusText: string, body: unknown): ApiError {
  if (isErrorBody(body)) {
    const code = typeof body.error.code === 'string' ? body.error.code : `http_${status}`;
    const message = typeof body.error.message === 'string' ? body.error.message : statusText || `HTTP ${status}`;
    return new ApiError(status, code, message);
  }
  return new ApiError(status, `http_${status}`, statusText ? `${status} ${statusText}` : `HTTP ${status}`);
}

export type Fetch = typeof fetch;

export interface RequestOptions {
  signal?: AbortSignal;
}

// Answers of requests started before the app mounted (`prefetch`), by path; the first getJson
// of the same path within PREFETCH_MAX_AGE_MS takes one instead of asking again (later, asking
// again is better than an old answer).
const PREFETCH_MAX_AGE_MS = 10_000;
const early = new Map<string, { answer: Promise<unknown>; at: number }>();
let prefetching = false;

/**
 * Starts `requests` (calls of `api.*`) at once and keeps their answers for the first asks of the
 * same paths, so a view that mounts later (its code still loading) gets them without waiting.
 */
export function prefetch(requests: () => Promise<unknown>[]): void {
  prefetching = true;
  try {
    // An answer nobody takes, or a failure, is the view's to see when it asks; not an error here.
    for (const p of requests()) p.catch(() => {});
  } finally {
    prefetching = false;
  }
}

/** `p`, or an AbortError as soon as `signal` aborts (the request itself goes on). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(new DOMException('aborted', 'AbortError'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DOMException('aborted', 'AbortError'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** GETs `path` (relative to the API base, with its query string) and parses the JSON answer. */
export function getJson<T>(path: string, opts: RequestOptions = {}, fetchImpl: Fetch = fetch): Promise<T> {
  if (prefetching) {
    const p = fetchJson<T>(path, {}, fetchImpl);
    early.set(path, { answer: p, at: Date.now() });
    return p;
  }
  const kept = early.get(path);
  if (kept) {
    early.delete(path);
    if (Date.now() - kept.at <= PREFETCH_MAX_AGE_MS) return untilAborted(kept.answer as Promise<T>, opts.signal);
  }
  return fetchJson<T>(path, opts, fetchImpl);
}

async function fetchJson<T>(path: string, opts: RequestOptions, fetchImpl: Fetch): Promise<T> {
  let res: Response;
  try {
    res = await fetchImpl(`${API_BASE}${path}`, { headers: { accept: 'application/json', ...authHeaders() }, signal: opts.signal });
  } catch (err) {
    if ((err as { name?: string })?.name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', 'Cannot reach the Trajscope server. Is it running?');
  }
  const text = await res.text();
  let body: unknown = undefined;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      if (res.ok) throw new ApiError(res.status, 'bad_response', 'The server answered with something that is not JSON.');
    }
  }
  if (!res.ok) throw noticeUnauthorized(errorFromResponse(res.status, res.statusText, body));
  return body as T;
}

/** Sends a JSON body (POST, DELETE, …) and parses the JSON answer (undefined for 204). */
export async function sendJson<T>(method: string, path: string, body: unknown, opts: RequestOptions = {}, fetchImpl: Fetch = fetch): Promise<T> {
  let res: Response;
  try {
    res = await fetchImpl(`${API_BASE}${path}`, {
      method,
      headers: { accept: 'application/json', ...authHeaders(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: opts.signal,
    });
  } catch (err) {
    if ((err as { name?: string })?.name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', 'Cannot reach the Trajscope server. Is it running?');
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      if (res.ok) throw new ApiError(res.status, 'bad_response', 'The server answered with something that is not JSON.');
    }
  }
  if (!res.ok) throw noticeUnauthorized(errorFromResponse(res.status, res.statusText, parsed));
  return parsed as T;
}

export const RUN_SORT_KEYS = ['started_at', 'cost_usd', 'steps', 'duration_ms', 'run_id', 'loops'] as const;
export type RunSortKey = (typeof RUN_SORT_KEYS)[number];
export type SortOrder = 'asc' | 'desc';

export interface RunsQuery {
  sort?: RunSortKey;
  order?: SortOrder;
  limit?: number;
  cursor?: string | null;
  /** Only runs with an error of this signature (the Errors page). */
  errorSignature?: string;
}

export interface RunQuery {
  project?: string;
  stepsOffset?: number;
  stepsLimit?: number;
}

export type TimeBucket = 'hour' | 'day' | 'auto';

/** Typed endpoints. `now` fixes relative time ranges so one view asks every endpoint the same. */
export const api = {
  runs(filters: Filters, now: Date, q: RunsQuery = {}, opts?: RequestOptions): Promise<RunsPage> {
    const params: [string, string][] = [...filtersToApiParams(filters, now)];
    if (q.sort) params.push(['sort', q.sort]);
    if (q.order) params.push(['order', q.order]);
    if (q.limit) params.push(['limit', String(q.limit)]);
    if (q.cursor) params.push(['cursor', q.cursor]);
    if (q.errorSignature) params.push(['error_signature', q.errorSignature]);
    return getJson<RunsPage>(`/runs${buildQuery(params)}`, opts);
  },

  /** One run; long runs come in windows of steps (`stepsOffset` rows in, `stepsLimit` rows). */
  run(runId: string, q: RunQuery = {}, opts?: RequestOptions): Promise<RunDetail> {
    const query = buildQuery({ project: q.project, steps_offset: q.stepsOffset || undefined, steps_limit: q.stepsLimit });
    return getJson<RunDetail>(`/runs/${encodeURIComponent(runId)}${query}`, opts);
  },

  /** Every step of a run in outline (numbers only), for the viewer's chart and list skeleton. */
  stepIndex(runId: string, project: string | undefined, opts?: RequestOptions): Promise<StepIndex> {
    return getJson<StepIndex>(`/runs/${encodeURIComponent(runId)}/steps/index${buildQuery({ project })}`, opts);
  },

  /** Steps at positions offset…offset+limit-1 of a run, with their tool calls. */
  stepWindow(runId: string, project: string | undefined, offset: number, limit: number, opts?: RequestOptions): Promise<StepWindow> {
    return getJson<StepWindow>(`/runs/${encodeURIComponent(runId)}/steps${buildQuery({ project, offset, limit })}`, opts);
  },

  /** Runs in view whose steps or tool calls hold the text searched for, a page at a time. */
  search(filters: Filters, now: Date, q: SearchQuery, opts?: RequestOptions): Promise<SearchAnswer> {
    return getJson<SearchAnswer>(`/search${buildQuery([...filtersToApiParams(filters, now, false), ...searchApiParams(q)])}`, opts);
  },

  /** The steps and tool calls of one run that hold a text, in step order. */
  findInRun(runId: string, project: string | undefined, q: { text: string; mode: string }, opts?: RequestOptions): Promise<RunFindAnswer> {
    return getJson<RunFindAnswer>(`/runs/${encodeURIComponent(runId)}/find${buildQuery({ project, q: q.text, mode: q.mode, limit: 1000 })}`, opts);
  },

  /** What one run did as a graph of tools (and files) and the transitions between them. */
  runGraph(runId: string, project: string | undefined, opts?: RequestOptions): Promise<RunGraph> {
    return getJson<RunGraph>(`/runs/${encodeURIComponent(runId)}/graph${buildQuery({ project })}`, opts);
  },

  /** Tools and transitions over the runs in view (the most recent matched), split by outcome. */
  cohortGraph(filters: Filters, now: Date, opts?: RequestOptions): Promise<CohortGraph> {
    return getJson<CohortGraph>(`/graph${buildQuery(filtersToApiParams(filters, now, false))}`, opts);
  },

  /** Error signatures of the runs in view (the window bounds the errors' time), most runs first. */
  errors(filters: Filters, now: Date, q: { limit?: number; signature?: string } = {}, opts?: RequestOptions): Promise<ErrorsReport> {
    const params: [string, string][] = [...filtersToApiParams(filters, now, false)];
    if (q.limit) params.push(['limit', String(q.limit)]);
    if (q.signature) params.push(['signature', q.signature]);
    return getJson<ErrorsReport>(`/errors${buildQuery(params)}`, opts);
  },

  /** Failure modes of the runs in view, with their counts over time. */
  failures(filters: Filters, now: Date, opts?: RequestOptions): Promise<FailuresReport> {
    return getJson<FailuresReport>(`/failures${buildQuery(filtersToApiParams(filters, now, false))}`, opts);
  },

  overview(filters: Filters, now: Date, opts?: RequestOptions): Promise<Overview> {
    return getJson<Overview>(`/overview${buildQuery(filtersToApiParams(filters, now, false))}`, opts);
  },

  timeseries(filters: Filters, now: Date, bucket: TimeBucket = 'auto', opts?: RequestOptions): Promise<Timeseries> {
    const params = [...filtersToApiParams(filters, now, false), ['bucket', bucket] as [string, string]];
    return getJson<Timeseries>(`/metrics/timeseries${buildQuery(params)}`, opts);
  },

  filterOptions(project: string | undefined, opts?: RequestOptions): Promise<FilterOptions> {
    return getJson<FilterOptions>(`/filters${buildQuery({ project })}`, opts);
  },

  /** Runs read-only SQL in the console; `params` fill `{name:Type}` placeholders. */
  sql(sql: string, params: Record<string, unknown> = {}, opts?: RequestOptions): Promise<SqlResult> {
    return sendJson<SqlResult>('POST', '/sql', { sql, params }, opts);
  },

  sqlSchema(opts?: RequestOptions): Promise<SqlSchema> {
    return getJson<SqlSchema>('/sql/schema', opts);
  },

  /** Saved console queries of a project (the server's default project when none is given). */
  savedQueries(project: string | undefined, opts?: RequestOptions): Promise<SavedQueryList> {
    return getJson<SavedQueryList>(`/sql/saved${buildQuery({ project })}`, opts);
  },

  /** Saves a new query, or replaces the one with `id`. */
  saveQuery(q: { project?: string; name: string; sql: string; id?: string }, opts?: RequestOptions): Promise<SavedQuery> {
    return sendJson<SavedQuery>('POST', '/sql/saved', q, opts);
  },

  deleteSavedQuery(id: string, project: string | undefined, opts?: RequestOptions): Promise<void> {
    return sendJson<void>('DELETE', `/sql/saved/${encodeURIComponent(id)}${buildQuery({ project })}`, undefined, opts);
  },

  /** The run metrics per value of a dimension (model, agent_version, …). */
  breakdown(filters: Filters, now: Date, by: string, opts?: RequestOptions): Promise<Breakdown> {
    return getJson<Breakdown>(`/metrics/breakdown${buildQuery([...filtersToApiParams(filters, now, false), ['by', by]])}`, opts);
  },

  /** Projects that hold runs, for the project picker. */
  projects(opts?: RequestOptions): Promise<ProjectList> {
    return getJson<ProjectList>('/projects', opts);
  },

  /**
   * Failure modes with their trend, a breakdown by `by` (model, agent_version, …), `examples` run
   * ids per mode and each mode against a baseline window (`base`, else the previous window).
   */
  failureModes(filters: Filters, now: Date, by: string, examples: number, opts?: RequestOptions & { base?: { from: string; to: string } }): Promise<FailuresReport> {
    const params: [string, string][] = [...filtersToApiParams(filters, now, false), ['by', by], ['examples', String(examples)]];
    if (opts?.base) params.push(['base_from', opts.base.from], ['base_to', opts.base.to]);
    return getJson<FailuresReport>(`/failures${buildQuery(params)}`, opts);
  },

  /** The dead loops of the runs in view, most costly first, with totals by kind. */
  loops(filters: Filters, now: Date, q: { kind?: string; limit?: number } = {}, opts?: RequestOptions): Promise<LoopsReport> {
    const params: [string, string][] = [...filtersToApiParams(filters, now, false)];
    if (q.kind) params.push(['kind', q.kind]);
    if (q.limit) params.push(['limit', String(q.limit)]);
    return getJson<LoopsReport>(`/loops${buildQuery(params)}`, opts);
  },

  /** Loops summed per value of a dimension (model, agent, …) or per tool. */
  loopGroups(filters: Filters, now: Date, by: string, opts?: RequestOptions): Promise<LoopGroups> {
    return getJson<LoopGroups>(`/loops/groups${buildQuery([...filtersToApiParams(filters, now, false), ['by', by]])}`, opts);
  },

  /** Runs far above their cohort's cost, context blow-up steps and hours of spend over baseline. */
  costSpikes(filters: Filters, now: Date, limit = 50, opts?: RequestOptions): Promise<CostSpikesReport> {
    return getJson<CostSpikesReport>(`/costs/spikes${buildQuery([...filtersToApiParams(filters, now, false), ['limit', String(limit)]])}`, opts);
  },

  /** The timeseries per value of a dimension (the 10 values with most runs), e.g. cost by model. */
  timeseriesBy(filters: Filters, now: Date, groupBy: string, bucket: TimeBucket = 'auto', opts?: RequestOptions): Promise<Timeseries> {
    const params: [string, string][] = [...filtersToApiParams(filters, now, false), ['bucket', bucket], ['group_by', groupBy]];
    return getJson<Timeseries>(`/metrics/timeseries${buildQuery(params)}`, opts);
  },

  /** Two cohorts side by side: the shared filters plus each cohort's own (`a[model]=x`). */
  compare(filters: Filters, now: Date, a: Record<string, string>, b: Record<string, string>, opts?: RequestOptions): Promise<CompareReport> {
    const params: [string, string][] = [...filtersToApiParams(filters, now, false)];
    for (const [k, v] of Object.entries(a)) params.push([`a[${k}]`, v]);
    for (const [k, v] of Object.entries(b)) params.push([`b[${k}]`, v]);
    return getJson<CompareReport>(`/compare${buildQuery(params)}`, opts);
  },

  /** What changed the completion rate between the window in view and `base` (another window), and why. */
  changes(filters: Filters, now: Date, base: { from: string; to: string }, opts?: RequestOptions): Promise<ChangeReport> {
    const params: [string, string][] = [...filtersToApiParams(filters, now, false), ['base_from', base.from], ['base_to', base.to]];
    if (!params.some(([k]) => k === 'to')) params.push(['to', now.toISOString()]);
    return getJson<ChangeReport>(`/changes${buildQuery(params)}`, opts);
  },
};
