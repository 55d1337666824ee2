// The calls a run graph is built from (analytics/tool-graph.ts): per tool call its step, tool,
// key argument, duration and status, in run order (by step, then time, then call id), with each
// step's cost and tokens shared among its calls. Never reads outputs or whole texts: a long
// argument is narrowed in the engine to the fields a key argument can come from. Every value is
// a {name:Type} parameter.
import { KEY_NAMES, keyArgument } from '../../analytics/key-argument.js';
import { buildToolGraph, type GraphCall, type ToolGraphOptions } from '../../analytics/tool-graph.js';
import type { CohortExample, CohortGraph, CohortGraphEdge, CohortGraphNode, OutcomeCounts, RunGraph } from '../../schemas/tool-graph.js';
import type { QueryParams, Storage } from '../gateway.js';
import { num, runStepPath } from './row-conversions.js';
import { EMPTY_FILTERS, type RunFilters } from './run-filters.js';
import { FAILED_SQL, SUCCESS_SQL } from './run-lifecycle-sql.js';
import { summarySql } from './run-summary-sql.js';

/** Arguments up to this long are read whole; longer ones only by their key fields. */
const WHOLE_ARGUMENTS_MAX = 400;
/** A key field read from a long argument is cut to this many characters. */
const KEY_FIELD_MAX = 300;

/**
 * The arguments of a call as little JSON as keyArgument needs: the text when short, else an
 * object of the key fields it looks for (their string values, cut), so a 100,000-step run moves
 * tool names and paths, not file contents.
 */
const ARGUMENTS_SQL = `if(length(arguments) <= {g_whole:UInt32}, arguments,
  toJSONString(mapFilter((k, v) -> v != '', mapFromArrays({g_keys:Array(String)},
    arrayMap(k -> substringUTF8(JSONExtractString(arguments, k), 1, {g_field:UInt32}), {g_keys:Array(String)})))))`;

/** The calls of a run in run order, steps without a call as tool ''. */
export async function readGraphCalls(storage: Storage, project: string, runId: string): Promise<GraphCall[]> {
  const p: QueryParams = { project, run_id: runId, g_whole: WHOLE_ARGUMENTS_MAX, g_field: KEY_FIELD_MAX, g_keys: [...KEY_NAMES] };
  const [steps, calls] = await Promise.all([
    storage.query<Record<string, unknown>>(
      `SELECT step, cost_usd, input_tokens + output_tokens AS tokens, latency_ms, (error_type != '' OR error_message != '') AS failed
       FROM steps FINAL PREWHERE project = {project:String} AND run_id = {run_id:String} ORDER BY step`,
      p,
    ),
    storage.query<Record<string, unknown>>(
      `SELECT step, toString(tool) AS tool, ${ARGUMENTS_SQL} AS args, ifNull(duration_ms, 0) AS ms, status = 'error' AS failed
       FROM tool_calls FINAL PREWHERE project = {project:String} AND run_id = {run_id:String}
       ORDER BY ifNull(step, 4294967295), ts, call_id`,
      p,
    ),
  ]);
  return mergeStepsAndCalls(steps, calls);
}

/** Steps and calls (each in order) as one list of calls, a step's cost and tokens split among its calls. */
function mergeStepsAndCalls(steps: Record<string, unknown>[], calls: Record<string, unknown>[]): GraphCall[] {
  const perStep = new Map<number, number>();
  for (const c of calls) if (c.step !== null && c.step !== undefined) perStep.set(num(c.step), (perStep.get(num(c.step)) ?? 0) + 1);
  const out: GraphCall[] = [];
  let ci = 0;
  const pushCall = (c: Record<string, unknown>, step: Record<string, unknown> | undefined) => {
    const share = step ? perStep.get(num(step.step)) ?? 1 : 1;
    out.push({
      step: c.step === null || c.step === undefined ? null : num(c.step),
      tool: String(c.tool),
      key: keyArgument(c.args),
      cost_usd: step ? num(step.cost_usd) / share : 0,
      tokens: step ? Math.round(num(step.tokens) / share) : 0,
      duration_ms: num(c.ms),
      error: Boolean(num(c.failed)),
    });
  };
  const stepOf = (c: Record<string, unknown>) => (c.step === null || c.step === undefined ? Infinity : num(c.step));
  for (const s of steps) {
    const step = num(s.step);
    // Calls of steps that have no step row come in their place in step order.
    while (ci < calls.length && stepOf(calls[ci]) < step) pushCall(calls[ci++], undefined);
    if (ci < calls.length && stepOf(calls[ci]) === step) {
      while (ci < calls.length && stepOf(calls[ci]) === step) pushCall(calls[ci++], s);
    } else {
      out.push({ step, tool: '', key: '', cost_usd: num(s.cost_usd), tokens: num(s.tokens), duration_ms: num(s.latency_ms), error: Boolean(num(s.failed)) });
    }
  }
  while (ci < calls.length) pushCall(calls[ci++], undefined);
  return out;
}

/** The run's derived status (success, failure, running, …): the end node's label. */
async function runOutcome(storage: Storage, project: string, runId: string): Promise<string> {
  const params: QueryParams = { run_id: runId };
  const summary = await summarySql(storage, { ...EMPTY_FILTERS, project: [project] }, params, runId);
  const rows = await storage.query<{ status: string }>(`SELECT status FROM (${summary}) WHERE run_id = {run_id:String} LIMIT 1`, params);
  return rows.length ? String(rows[0].status) : 'unknown';
}

/** GET /api/v1/runs/:run_id/graph for a run whose project is known. */
export async function getRunGraph(storage: Storage, project: string, runId: string, o: ToolGraphOptions = {}): Promise<RunGraph> {
  const [calls, outcome] = await Promise.all([readGraphCalls(storage, project, runId), runOutcome(storage, project, runId)]);
  const built = buildToolGraph(calls, outcome, o);
  const steps = new Set<number>();
  for (const c of calls) if (c.step !== null) steps.add(c.step);
  return {
    project,
    run_id: runId,
    outcome,
    steps: steps.size,
    tool_calls: calls.filter((c) => c.tool !== '').length,
    merged_nodes: built.merged_nodes,
    nodes: built.nodes,
    edges: built.edges,
  };
}

// ── The cohort graph: the same over many runs, nodes being tools only.

/** The most recent runs of those matched that the cohort graph reads. */
export const COHORT_RUNS_CAP = 20_000;
/** Tools with their own node by default; the rest share one "other" node. */
export const COHORT_MAX_TOOLS = 20;
/** Example runs listed per node and edge and outcome. */
const COHORT_EXAMPLES = 5;
/** A call without a step sorts after every step (and has no step link). */
const NO_STEP = 4294967295;

export interface CohortOptions {
  maxTools: number;
  maxRuns: number;
}

/**
 * The runs read (the most recent `g_runs` matched, each with its outcome) and their tool calls,
 * once each (FINAL: a call delivered twice is one row), as WITH clauses for the queries below.
 */
function cohortWith(summary: string): string {
  return `WITH picked AS (
      SELECT project, run_id, multiIf(${SUCCESS_SQL}, 'success', ${FAILED_SQL}, 'failure', 'other') AS outcome
      FROM (${summary}) ORDER BY started_at DESC, project, run_id LIMIT {g_runs:UInt32}
    ),
    calls AS (
      SELECT project, run_id, ifNull(step, ${NO_STEP}) AS step, ts, call_id, toString(tool) AS tool
      FROM tool_calls FINAL WHERE (project, run_id) IN (SELECT project, run_id FROM picked)
    )`;
}

/** A call's node: its tool when among the top ones, else the merged "other". */
const NODE_OF = (tool: string) => `if(has({g_top:Array(String)}, ${tool}), concat('tool:', ${tool}), 'other')`;

/** Examples per outcome, failures first, then successes, then the rest; each side in run-id order. */
const EXAMPLES_SQL = `arrayConcat(
    arraySlice(arraySort(x -> (x.1, x.2), arrayFilter(x -> x.4 = 'failure', groupArray((project, run_id, first_step, outcome)))), 1, {g_examples:UInt32}),
    arraySlice(arraySort(x -> (x.1, x.2), arrayFilter(x -> x.4 = 'success', groupArray((project, run_id, first_step, outcome)))), 1, {g_examples:UInt32}),
    arraySlice(arraySort(x -> (x.1, x.2), arrayFilter(x -> x.4 = 'other', groupArray((project, run_id, first_step, outcome)))), 1, {g_examples:UInt32}))`;

const PER_OUTCOME = (col: string, agg: 'sum' | 'count') =>
  agg === 'sum'
    ? `sum(${col}) AS ${col}_all, sumIf(${col}, outcome = 'success') AS ${col}_success, sumIf(${col}, outcome = 'failure') AS ${col}_failure`
    : `count() AS runs_all, countIf(outcome = 'success') AS runs_success, countIf(outcome = 'failure') AS runs_failure`;

/** GET /api/v1/graph: tools and transitions over the most recent runs matched by `f`. */
export async function getCohortGraph(storage: Storage, f: RunFilters, o: CohortOptions): Promise<CohortGraph> {
  const params: QueryParams = { g_runs: o.maxRuns, g_examples: COHORT_EXAMPLES };
  const summary = await summarySql(storage, f, params);
  const base = cohortWith(summary);
  const [totals, tools] = await Promise.all([
    storage.query<Record<string, unknown>>(
      `${base} SELECT (SELECT count() FROM (${summary})) AS matched, count() AS runs_all,
              countIf(outcome = 'success') AS runs_success, countIf(outcome = 'failure') AS runs_failure FROM picked`,
      params,
    ),
    storage.query<{ tool: string; n: number }>(`${base} SELECT tool, count() AS n FROM calls GROUP BY tool ORDER BY n DESC, tool`, params),
  ]);
  const t = totals[0] ?? {};
  params.g_top = tools.slice(0, o.maxTools).map((r) => String(r.tool));
  const [nodeRows, edgeRows] = await Promise.all([
    storage.query<Record<string, unknown>>(
      `${base}
       SELECT node, ${PER_OUTCOME('n', 'sum')}, ${PER_OUTCOME('', 'count')}, ${EXAMPLES_SQL} AS examples
       FROM (SELECT ${NODE_OF('c.tool')} AS node, c.project AS project, c.run_id AS run_id, any(p.outcome) AS outcome, count() AS n, min(c.step) AS first_step
             FROM calls AS c INNER JOIN picked AS p ON c.project = p.project AND c.run_id = p.run_id
             GROUP BY node, project, run_id)
       GROUP BY node ORDER BY n_all DESC, node`,
      params,
    ),
    storage.query<Record<string, unknown>>(
      `${base}
       SELECT src, dst, ${PER_OUTCOME('n', 'sum')}, ${PER_OUTCOME('', 'count')}, ${EXAMPLES_SQL} AS examples
       FROM (
         SELECT pr.1 AS src, pr.2 AS dst, project, run_id, any(outcome) AS outcome, count() AS n, min(pr.3) AS first_step
         FROM (
           SELECT project, run_id, outcome, seq,
                  arrayConcat(['start'], arrayMap(x -> ${NODE_OF('x.4')}, seq), [concat('end:', outcome)]) AS path,
                  arrayConcat(arrayMap(x -> x.1, seq), [if(empty(seq), ${NO_STEP}, seq[-1].1)]) AS to_steps
           FROM picked AS p
           LEFT JOIN (SELECT project, run_id, arraySort(groupArray((step, ts, call_id, tool))) AS seq FROM calls GROUP BY project, run_id) AS s
             ON p.project = s.project AND p.run_id = s.run_id
         )
         ARRAY JOIN arrayZip(arrayPopBack(path), arrayPopFront(path), to_steps) AS pr
         GROUP BY src, dst, project, run_id
       )
       GROUP BY src, dst ORDER BY n_all DESC, src, dst`,
      params,
    ),
  ]);
  const runs = { all: num(t.runs_all), success: num(t.runs_success), failure: num(t.runs_failure) };
  return buildCohortGraph({
    matched: num(t.matched),
    runs,
    runsCap: o.maxRuns,
    mergedTools: Math.max(0, tools.length - o.maxTools),
    nodeRows,
    edgeRows,
  });
}

interface CohortRows {
  matched: number;
  runs: OutcomeCounts;
  runsCap: number;
  mergedTools: number;
  nodeRows: Record<string, unknown>[];
  edgeRows: Record<string, unknown>[];
}

const counts = (r: Record<string, unknown>, prefix: string): OutcomeCounts => ({
  all: num(r[`${prefix}_all`]),
  success: num(r[`${prefix}_success`]),
  failure: num(r[`${prefix}_failure`]),
});

function examplesOf(v: unknown): CohortExample[] {
  return (Array.isArray(v) ? v : []).map((x) => {
    const [project, runId, step, outcome] = x as [string, string, unknown, string];
    const s = num(step) === NO_STEP ? null : num(step);
    return { project: String(project), run_id: String(runId), step: s, failed: outcome === 'failure', link: runStepPath(String(runId), s) };
  });
}

/** Nodes and edges from the query rows, with start/end nodes and P(next | current) per outcome. */
function buildCohortGraph(r: CohortRows): CohortGraph {
  const nodes: CohortGraphNode[] = [
    { id: 'start', kind: 'start', tool: '', label: 'start', calls: r.runs, runs: r.runs, examples: [] },
  ];
  for (const n of r.nodeRows) {
    const id = String(n.node);
    const tool = id.startsWith('tool:') ? id.slice(5) : '';
    nodes.push({ id, kind: id === 'other' ? 'other' : 'tool', tool, label: tool || 'other tools', calls: counts(n, 'n'), runs: counts(n, 'runs'), examples: examplesOf(n.examples) });
  }
  const outOf = new Map<string, OutcomeCounts>();
  for (const e of r.edgeRows) {
    const src = String(e.src);
    const c = counts(e, 'n');
    const sum = outOf.get(src) ?? { all: 0, success: 0, failure: 0 };
    outOf.set(src, { all: sum.all + c.all, success: sum.success + c.success, failure: sum.failure + c.failure });
  }
  for (const end of ['end:success', 'end:failure', 'end:other']) {
    const runs = r.edgeRows.filter((e) => String(e.dst) === end).reduce<OutcomeCounts>((a, e) => {
      const c = counts(e, 'runs');
      return { all: a.all + c.all, success: a.success + c.success, failure: a.failure + c.failure };
    }, { all: 0, success: 0, failure: 0 });
    if (runs.all > 0) nodes.push({ id: end, kind: 'end', tool: '', label: end.slice(4) === 'other' ? 'no verdict yet' : end.slice(4), calls: runs, runs, examples: [] });
  }
  const p = (x: number, of: number) => (of > 0 ? Number((x / of).toPrecision(4)) : 0);
  const edges: CohortGraphEdge[] = r.edgeRows.map((e) => {
    const src = String(e.src);
    const dst = String(e.dst);
    const c = counts(e, 'n');
    const runs = counts(e, 'runs');
    const out = outOf.get(src)!;
    return {
      id: `${src}->${dst}`,
      from: src,
      to: dst,
      count: c,
      probability: { all: p(c.all, out.all), success: p(c.success, out.success), failure: p(c.failure, out.failure) },
      runs,
      failure_share: p(runs.failure, runs.all),
      examples: examplesOf(e.examples),
    };
  });
  return { runs_matched: r.matched, runs_read: r.runs.all, runs: r.runs, runs_cap: r.runsCap, merged_tools: r.mergedTools, nodes, edges };
}
