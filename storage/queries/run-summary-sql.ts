// SQL for one summary row per run (run_start and run_end fields merged, step and tool-call
// totals exact under re-delivery), filtered by RunFilters. Identifiers are fixed here; every
// value is a {name:Type} parameter. Pure: returns SQL text and parameters.
import { cachedAnswer } from '../answer-cache.js';
import { sharedStorage, type QueryParams, type Storage } from '../gateway.js';
import { runPairsIn, type RunFilters } from './run-filters.js';
import { VERDICT_SCORE } from '../../schemas/events.js';
import { FAILED_SQL, failureModeSql, runLifecycle, runStatusSql, SUCCESS_SQL, type RunLifecycle } from './run-lifecycle-sql.js';
import { HAS_LOOPS_SQL } from './run-aggregates.js';
import { analysisHasSignatureSql, runErrorOccurrencesSql, runsWithSignatureSql } from './error-rows-sql.js';

/** Verdict columns of run_analysis carried into the summary (besides failure_mode). */
export const ANALYSIS_COLUMNS = [
  'failure_rule', 'failure_reason', 'loop_count', 'loop_steps', 'loop_tokens', 'loop_cost_usd', 'suspicious',
  'suspicious_reasons', 'self_corrected', 'rework_repeated', 'actions', 'loops', 'hacking_kinds',
] as const;

/** Step- and tool-level rollups of a run (arrays): read only by the queries that need them. */
export const ROLLUP_ARRAYS = ['step_input_tokens', 'tool_names', 'tool_call_counts', 'tool_error_counts', 'tool_corrected_counts'] as const;

/** RL fields of run_start and the rollups the RL views read (0007). */
export const RL_COLUMNS = [
  'rl_training_step', 'rl_policy_version', 'rl_group_id', 'rl_sample_index', 'action_sequence', 'tool_ms_sum', 'tool_ms',
] as const;

/** Columns both branches of the summary give, in order (see runSummarySql). */
const SUMMARY_COLUMNS = [
  'project', 'run_id', 'started_at', 'ended_at', 'last_event_at', 'status', 'agent_name', 'agent_version', 'model',
  'task_id', 'task_category', 'environment', 'tags_json', 'parent_run_id', 'max_steps', 'budget_usd', 'reward',
  'tests_passed', 'tests_failed', 'label_failure_mode', 'error_type', 'error_message', 'steps', 'tool_calls',
  'tool_errors', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens',
  'cost_usd', 'cost_estimated', 'times_estimated', 'latency_ms_sum', 'latency_count', 'max_input_tokens', 'analysis_failure_mode', 'verdict',
  ...ANALYSIS_COLUMNS, ...ROLLUP_ARRAYS, ...RL_COLUMNS,
] as const;

/**
 * A run's error occurrences (docs/errors.md), parallel arrays: those of its steps and tool calls
 * (errorOccurrencesSql) and its final error (occurrence `end`, at the run's end), carried only
 * when asked for (SummaryOptions.errors).
 */
export const ERROR_COLUMNS = ['error_occurrences', 'error_templates', 'error_tools', 'error_ts'] as const;

export interface SummaryOptions {
  /** Carry ERROR_COLUMNS (the errors endpoint). */
  errors?: boolean;
}

/**
 * The columns as each branch gives them: run_end's status (or 'running') as `end_status`; the
 * summary derives `status` from it (run-lifecycle-sql.ts).
 */
function branchColumns(o: SummaryOptions): string[] {
  return [...SUMMARY_COLUMNS, ...(o.errors ? ERROR_COLUMNS : [])].map((c) => (c === 'status' ? 'status AS end_status' : c));
}

/**
 * ERROR_COLUMNS from a run's step errors (the step_error_* arrays of `p`) and its final error:
 * `template` ('' when none) at `at`.
 */
function errorColumnsSql(p: string, template: string, at: string): string {
  const end = (value: string, type: string) => `if(${template} != '', [${value}], CAST([] AS Array(${type})))`;
  return [
    `arrayConcat(${p}step_error_occurrences, ${end("'end'", 'String')}) AS error_occurrences`,
    `arrayConcat(${p}step_error_templates, ${end(template, 'String')}) AS error_templates`,
    `arrayConcat(CAST(${p}step_error_tools AS Array(String)), ${end("''", 'String')}) AS error_tools`,
    `arrayConcat(${p}step_error_ts, ${end(at, "DateTime64(3, 'UTC')")}) AS error_ts`,
  ].join(', ');
}

/** Runs without a fresh analysis, as parallel arrays (project, run_id); null when too many to list. */
export interface StaleRuns {
  projects: string[];
  runIds: string[];
}

/** Beyond this many stale runs (a backfill in progress) the summary finds them in SQL instead. */
const MAX_LISTED_STALE = 5000;

/**
 * Runs whose analysis does not cover every row stored for them (or that have none): the run's
 * max(runs.ingested_at) is later than the latest analysis' source_ingested_at. One aggregation
 * over both tables' rows keyed by a 64-bit hash of (project, run_id) (3x faster than the string
 * pair; a collision — about 1e-10 at 100,000 runs — could only delay a run's raw fallback), no
 * join. Usually a handful: those with events in the last seconds.
 */
export function findStaleRuns(storage: Storage, f: RunFilters, runId?: RunIds): Promise<StaleRuns | null> {
  if (typeof runId === 'string') return queryStaleRuns(storage, f, runId);
  if (runId !== undefined) return staleAmong(storage, f, runId);
  // The answer only changes with writes: reuse it until this connection writes again (embedded:
  // the only writer; a shared server: also at most a second old). Concurrent requests of a
  // dashboard share one query.
  // Shared between requests, so computed on the shared storage: not cancelled with one of them.
  const shared = sharedStorage(storage);
  return cachedAnswer(shared, ['stale-runs', f.project], () => queryStaleRuns(shared, f));
}

/** A page of runs: those of them among the stale runs of their projects (shared, above), else asked for. */
async function staleAmong(storage: Storage, f: RunFilters, runIds: readonly string[]): Promise<StaleRuns | null> {
  const all = await findStaleRuns(storage, f);
  if (all === null) return queryStaleRuns(storage, f, runIds);
  const wanted = new Set(runIds);
  const keep = all.runIds.flatMap((r, i) => (wanted.has(r) ? [i] : []));
  return { projects: keep.map((i) => all.projects[i]!), runIds: keep.map((i) => all.runIds[i]!) };
}

async function queryStaleRuns(storage: Storage, f: RunFilters, runId?: RunIds): Promise<StaleRuns | null> {
  const params: QueryParams = {};
  const pre = preConditions(f, params, runId);
  const where = pre.length ? `WHERE ${pre.join(' AND ')}` : '';
  params.max = MAX_LISTED_STALE + 1;
  const rows = await storage.query<{ project: string; run_id: string }>(
    `SELECT any(project) AS project, any(run_id) AS run_id FROM
     (
       SELECT project, run_id, cityHash64(project, run_id) AS h, ingested_at AS stored, toDateTime64(0, 6, 'UTC') AS analysed
       FROM runs ${where}
       UNION ALL
       SELECT project, run_id, cityHash64(project, run_id) AS h, toDateTime64(0, 6, 'UTC') AS stored, source_ingested_at AS analysed
       FROM run_analysis ${where}
     )
     GROUP BY h HAVING max(stored) > max(analysed)
     LIMIT {max:UInt32}`,
    params,
  );
  if (rows.length > MAX_LISTED_STALE) return null;
  return { projects: rows.map((r) => r.project), runIds: rows.map((r) => r.run_id) };
}

/** The summary SQL for these filters, after finding the runs that need raw aggregation. */
export async function summarySql(storage: Storage, f: RunFilters, params: QueryParams, runId?: RunIds, o: SummaryOptions = {}): Promise<string> {
  return runSummarySql(f, params, await findStaleRuns(storage, f, runId), runLifecycle(storage), runId, o);
}

/**
 * The per-run summary as a subquery: columns named like RunSummary's fields, plus the analysis
 * columns. Runs whose analysis is fresh (it covers every row stored for the run: its
 * source_ingested_at equals the run's max(runs.ingested_at)) are read from run_analysis, one row
 * each; the others (not analysed yet, or events arrived since) are aggregated from the raw tables,
 * so totals are exact either way and runs that are still going stay visible. `stale` lists those
 * others (findStaleRuns); when null they are found inside the query (slower). `status` and
 * `failure_mode` are the derived ones (run-lifecycle-sql.ts), filtered on after deriving them.
 */
export function runSummarySql(
  f: RunFilters,
  params: QueryParams,
  stale: StaleRuns | null,
  lifecycle: RunLifecycle,
  runId?: RunIds,
  o: SummaryOptions = {},
): string {
  const pre = preConditions(f, params, runId);
  const preWhere = pre.length ? `AND ${pre.join(' AND ')}` : '';
  // A fresh analysis holds its run's error templates (step_error_templates, final_error_template).
  const post = postConditions(f, params, analysisHasSignatureSql);
  const postWhere = post.length ? `AND ${post.join(' AND ')}` : '';
  const columns = branchColumns(o);
  // The error columns of a fresh analysis are made of its own (errorColumnsSql), in the same place.
  const freshColumns = [
    ...branchColumns({}).map((c) => (c === 'analysis_failure_mode' ? 'failure_mode AS analysis_failure_mode' : c)),
    ...(o.errors ? [errorColumnsSql('', 'final_error_template', 'ifNull(ended_at, last_event_at)')] : []),
  ].join(', ');
  let fresh: string;
  let stalePart: string | null;
  if (stale) {
    params.st_p = stale.projects;
    params.st_r = stale.runIds;
    const listed = runPairsIn('st_p', 'st_r');
    fresh = `SELECT ${freshColumns} FROM run_analysis FINAL WHERE 1 ${preWhere} ${postWhere} ${stale.runIds.length ? `AND NOT ${listed}` : ''}`;
    stalePart = stale.runIds.length ? rawSummarySql(f, params, listed, o) : null;
  } else {
    const freshKeys = `(project, run_id, source_ingested_at) IN
        (SELECT project, run_id, max(ingested_at) FROM runs WHERE 1 ${preWhere} GROUP BY project, run_id)`;
    fresh = `SELECT ${freshColumns} FROM run_analysis FINAL WHERE ${freshKeys} ${preWhere} ${postWhere}`;
    stalePart = rawSummarySql(
      f,
      params,
      `${runId !== undefined ? `${runIdCondition(runId, params)} AND ` : ''}(project, run_id) NOT IN (SELECT project, run_id FROM run_analysis FINAL WHERE ${freshKeys} ${preWhere})`,
      o,
    );
  }
  const outer: string[] = [];
  if (f.status.length) {
    params.f_status = f.status;
    outer.push('status IN {f_status:Array(String)}');
  }
  if (f.failure_mode.length) {
    params.f_failure_mode = f.failure_mode;
    outer.push('failure_mode IN {f_failure_mode:Array(String)}');
  }
  outer.push(...loopAndOutcomeConditions(f, params));
  return `
    SELECT * EXCEPT (end_status),
      ${runStatusSql(params, lifecycle, 'end_status', 'last_event_at', 'verdict')} AS status,
      ${failureModeSql('status', 'label_failure_mode', 'analysis_failure_mode')} AS failure_mode,
      if(ended_at IS NULL, NULL, toUInt64(greatest(0, dateDiff('millisecond', started_at, assumeNotNull(ended_at))))) AS duration_ms
    FROM
    (
      ${fresh}
      ${stalePart ? `UNION ALL SELECT ${columns.join(', ')} FROM (${stalePart})` : ''}
    )
    ${outer.length ? `WHERE ${outer.join(' AND ')}` : ''}`;
}

/** The has_loops and outcome filters, on the summary's loop count and derived status (the shared definitions). */
function loopAndOutcomeConditions(f: RunFilters, params: QueryParams): string[] {
  const out: string[] = [];
  if (f.has_loops !== undefined) {
    params.f_has_loops = f.has_loops;
    out.push(`(${HAS_LOOPS_SQL}) = {f_has_loops:Bool}`);
  }
  if (f.outcome !== undefined) out.push(f.outcome === 'succeeded' ? SUCCESS_SQL : FAILED_SQL);
  return out;
}

/** One run (its id) or a few (a page of them): the summary reads only their rows. */
export type RunIds = string | readonly string[];

function runIdCondition(runId: RunIds, params: QueryParams): string {
  if (typeof runId === 'string') {
    params.f_run_id = runId;
    return 'run_id = {f_run_id:String}';
  }
  params.f_run_ids = [...runId];
  return 'run_id IN {f_run_ids:Array(String)}';
}

function preConditions(f: RunFilters, params: QueryParams, runId?: RunIds): string[] {
  const pre: string[] = [];
  if (runId !== undefined) pre.push(runIdCondition(runId, params));
  if (f.project.length) {
    params.f_project = f.project;
    pre.push('project IN {f_project:Array(String)}');
  }
  return pre;
}

/**
 * Conditions on a summary's own columns (all filters but status and failure_mode, which are
 * derived); `withSignature` makes the condition of the error_signature filter (an Array(String)
 * parameter's name in, SQL out), which each branch reads its own way.
 */
function postConditions(f: RunFilters, params: QueryParams, withSignature: (param: string) => string): string[] {
  const post: string[] = [];
  const inList = (col: string, name: string, values: string[]) => {
    if (!values.length) return;
    params[name] = values;
    post.push(`${col} IN {${name}:Array(String)}`);
  };
  inList('model', 'f_model', f.model);
  inList('agent_name', 'f_agent', f.agent);
  inList('agent_version', 'f_agent_version', f.agent_version);
  inList('task_category', 'f_task_category', f.task_category);
  inList('environment', 'f_environment', f.environment);
  f.tag.forEach((t, i) => {
    params[`f_tag_k${i}`] = t.key;
    params[`f_tag_v${i}`] = t.value;
    post.push(`JSONExtractString(tags_json, {f_tag_k${i}:String}) = {f_tag_v${i}:String}`);
  });
  if (f.from !== undefined) {
    params.f_from = f.from;
    post.push('started_at >= fromUnixTimestamp64Milli({f_from:Int64})');
  }
  if (f.to !== undefined) {
    params.f_to = f.to;
    post.push('started_at < fromUnixTimestamp64Milli({f_to:Int64})');
  }
  if (f.q) {
    params.f_q = f.q;
    post.push('(positionCaseInsensitive(run_id, {f_q:String}) > 0 OR positionCaseInsensitive(task_id, {f_q:String}) > 0)');
  }
  inList('parent_run_id', 'f_parent_run_id', f.parent_run_id);
  if (f.error_signature.length) {
    params.f_error_signature = f.error_signature;
    post.push(withSignature('f_error_signature'));
  }
  return post;
}

/**
 * Over the `runs` rows of a run: its start or end time was not in the source but estimated (an
 * importer lists `ts` in the `metadata.estimated` of its run_start or run_end).
 */
const TIMES_ESTIMATED_SQL = ['start_metadata', 'end_metadata']
  .map((c) => `(position(ifNull(anyLast(runs.${c}), ''), '"estimated"') > 0 AND has(JSONExtract(ifNull(anyLast(runs.${c}), ''), 'estimated', 'Array(String)'), 'ts'))`)
  .join(' OR ');

/**
 * A run's own fields, aggregated from the `runs` table alone (one row per run): `where` narrows
 * the rows read (key columns), `having` the runs (their fields).
 */
export function runFieldsSql(where: string, having = ''): string {
  return `
      SELECT
        runs.project AS project,
        runs.run_id AS run_id,
        ifNull(min(runs.started_at), min(runs.first_event_at)) AS started_at,
        max(runs.ended_at) AS ended_at,
        max(runs.last_event_at) AS last_event_at,
        ifNull(anyLast(runs.status), 'running') AS status,
        ifNull(anyLast(runs.agent_name), '') AS agent_name,
        ifNull(anyLast(runs.agent_version), '') AS agent_version,
        ifNull(anyLast(runs.model), ifNull(anyLast(runs.step_model), '')) AS model,
        ifNull(anyLast(runs.task_id), '') AS task_id,
        ifNull(anyLast(runs.task_category), '') AS task_category,
        ifNull(anyLast(runs.environment), '') AS environment,
        ifNull(anyLast(runs.tags), '{}') AS tags_json,
        ifNull(anyLast(runs.parent_run_id), '') AS parent_run_id,
        anyLast(runs.max_steps) AS max_steps,
        anyLast(runs.budget_usd) AS budget_usd,
        anyLast(runs.reward) AS reward,
        anyLast(runs.tests_passed) AS tests_passed,
        anyLast(runs.tests_failed) AS tests_failed,
        ifNull(anyLast(runs.failure_mode), '') AS failure_mode,
        ifNull(anyLast(runs.error_type), '') AS error_type,
        ifNull(anyLast(runs.error_message), '') AS error_message,
        anyLast(runs.rl_training_step) AS rl_training_step,
        ifNull(anyLast(runs.rl_policy_version), '') AS rl_policy_version,
        ifNull(anyLast(runs.rl_group_id), '') AS rl_group_id,
        anyLast(runs.rl_sample_index) AS rl_sample_index,
        ${TIMES_ESTIMATED_SQL} AS times_estimated,
        max(runs.ingested_at) AS ingested_at
      FROM runs
      ${where}
      GROUP BY runs.project, runs.run_id
      ${having}`;
}

/**
 * The per-run summary aggregated from the raw tables (runs, steps FINAL, tool_calls FINAL), with
 * the analysis columns of the run's latest analysis (if any). `restrict` is extra SQL on
 * (project, run_id) that narrows the runs read (e.g. to those without a fresh analysis).
 */
export function rawSummarySql(f: RunFilters, params: QueryParams, restrict?: string, o: SummaryOptions = {}): string {
  const pre = preConditions(f, params);
  if (restrict) pre.push(restrict);
  // Runs read raw: those of their error rows (`pre` narrows them to these runs).
  const post = postConditions(f, params, (param) => `(project, run_id) IN (${runsWithSignatureSql(param, pre.join(' AND '))})`);
  const where = pre.length ? `WHERE ${pre.join(' AND ')}` : '';
  const having = post.length ? `HAVING ${post.join(' AND ')}` : '';
  // On key columns: with FINAL, PREWHERE filters before the versions are collapsed (safe, since every
  // version of a row has the same key) and is several times cheaper than WHERE, which filters after.
  const picked = '(project, run_id) IN (SELECT project, run_id FROM filtered_runs)';
  params.vd_name = VERDICT_SCORE.name;
  params.vd_source = VERDICT_SCORE.source;
  return `
    WITH filtered_runs AS
    (
      ${runFieldsSql(where, having)}
    )
    SELECT
      r.project AS project,
      r.run_id AS run_id,
      r.started_at AS started_at,
      r.ended_at AS ended_at,
      r.last_event_at AS last_event_at,
      r.status AS status,
      r.agent_name AS agent_name,
      r.agent_version AS agent_version,
      r.model AS model,
      r.task_id AS task_id,
      r.task_category AS task_category,
      r.environment AS environment,
      r.tags_json AS tags_json,
      r.parent_run_id AS parent_run_id,
      r.max_steps AS max_steps,
      r.budget_usd AS budget_usd,
      r.reward AS reward,
      r.tests_passed AS tests_passed,
      r.tests_failed AS tests_failed,
      r.failure_mode AS label_failure_mode,
      r.error_type AS error_type,
      r.error_message AS error_message,
      st.steps AS steps,
      tc.tool_calls AS tool_calls,
      tc.tool_errors AS tool_errors,
      st.input_tokens AS input_tokens,
      st.output_tokens AS output_tokens,
      st.cache_read_tokens AS cache_read_tokens,
      st.cache_write_tokens AS cache_write_tokens,
      st.reasoning_tokens AS reasoning_tokens,
      st.cost_usd AS cost_usd,
      st.cost_estimated AS cost_estimated,
      r.times_estimated AS times_estimated,
      ifNull(st.latency_ms_sum, 0) AS latency_ms_sum,
      ifNull(st.latency_count, 0) AS latency_count,
      ifNull(st.max_input_tokens, 0) AS max_input_tokens,
      st.step_input_tokens AS step_input_tokens,
      tt.tool_names AS tool_names,
      tt.tool_call_counts AS tool_call_counts,
      tt.tool_error_counts AS tool_error_counts,
      -- Self-correction needs the call sequence: only the run analysis counts it per tool.
      CAST([] AS Array(UInt32)) AS tool_corrected_counts,
      r.rl_training_step AS rl_training_step,
      r.rl_policy_version AS rl_policy_version,
      r.rl_group_id AS rl_group_id,
      r.rl_sample_index AS rl_sample_index,
      '' AS action_sequence,
      ifNull(tc.tool_ms_sum, 0) AS tool_ms_sum,
      tc.tool_ms AS tool_ms,
      ra.failure_mode AS analysis_failure_mode,
      vd.verdict AS verdict,
      ${ANALYSIS_COLUMNS.map((c) => `ra.${c} AS ${c}`).join(',\n      ')}
      ${o.errors ? `, ${errorColumnsSql('er.', 'ra.final_error_template', 'ifNull(r.ended_at, r.last_event_at)')}` : ''}
    FROM filtered_runs AS r
    LEFT JOIN
    (
      SELECT project, run_id,
        count() AS steps,
        sum(input_tokens) AS input_tokens,
        sum(output_tokens) AS output_tokens,
        sum(cache_read_tokens) AS cache_read_tokens,
        sum(cache_write_tokens) AS cache_write_tokens,
        sum(reasoning_tokens) AS reasoning_tokens,
        sum(cost_usd) AS cost_usd,
        max(cost_estimated) AS cost_estimated,
        sum(ifNull(latency_ms, 0)) AS latency_ms_sum,
        count(latency_ms) AS latency_count,
        max(steps.input_tokens) AS max_input_tokens,
        arrayMap(x -> x.2, arraySort(groupArray((steps.step, steps.input_tokens)))) AS step_input_tokens
      FROM steps FINAL
      PREWHERE ${picked}
      GROUP BY project, run_id
    ) AS st ON st.project = r.project AND st.run_id = r.run_id
    LEFT JOIN
    (
      SELECT project, run_id, count() AS tool_calls, countIf(status = 'error') AS tool_errors,
        sum(ifNull(duration_ms, 0)) AS tool_ms_sum, groupArray(toFloat32(duration_ms)) AS tool_ms
      FROM tool_calls FINAL
      PREWHERE ${picked}
      GROUP BY project, run_id
    ) AS tc ON tc.project = r.project AND tc.run_id = r.run_id
    LEFT JOIN
    (
      SELECT project, run_id, groupArray(tool) AS tool_names, groupArray(calls) AS tool_call_counts, groupArray(errors) AS tool_error_counts
      FROM
      (
        SELECT project, run_id, tool, toUInt32(count()) AS calls, toUInt32(countIf(status = 'error')) AS errors
        FROM tool_calls FINAL
        PREWHERE ${picked}
        GROUP BY project, run_id, tool
      )
      GROUP BY project, run_id
    ) AS tt ON tt.project = r.project AND tt.run_id = r.run_id
    LEFT JOIN
    (
      -- The verifier's verdict (Nullable: a run without one gets NULL from the join).
      SELECT project, run_id, CAST(argMax(value, ts) AS Nullable(Float64)) AS verdict
      FROM scores FINAL
      PREWHERE ${picked} AND name = {vd_name:String} AND source = {vd_source:String}
      GROUP BY project, run_id
    ) AS vd ON vd.project = r.project AND vd.run_id = r.run_id
    LEFT JOIN
    (
      SELECT project, run_id, failure_mode, ${ANALYSIS_COLUMNS.join(', ')}${o.errors ? ', final_error_template' : ''}
      FROM run_analysis FINAL
      PREWHERE ${picked}
    ) AS ra ON ra.project = r.project AND ra.run_id = r.run_id
    ${
      o.errors
        ? `LEFT JOIN
    (
      -- The error occurrences of its steps and tool calls, as the analyzer keeps them (step_error_*).
      ${runErrorOccurrencesSql(picked)}
    ) AS er ON er.project = r.project AND er.run_id = r.run_id`
        : ''
    }`;
}

/** Sortable columns of the runs list (allow-list). */
export const RUN_SORTS = {
  started_at: 'toFloat64(toUnixTimestamp64Milli(started_at))',
  ended_at: 'toFloat64(ifNull(toUnixTimestamp64Milli(ended_at), -1))',
  cost_usd: 'toFloat64(cost_usd)',
  steps: 'toFloat64(steps)',
  duration_ms: 'toFloat64(ifNull(duration_ms, -1))',
  run_id: 'toFloat64(0)',
  loops: 'toFloat64(ifNull(loop_count, 0))',
} as const;
export type RunSort = keyof typeof RUN_SORTS;
