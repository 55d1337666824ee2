// GET /api/v1/errors: the error signatures of the runs in view (docs/errors.md). A signature is
// an error template (steps.error_template, tool_calls.error_template: 0017_error_templates.sql)
// and its id lower(hex(cityHash64(template))). An occurrence is one step of a run with an error
// of that template: a step's error and its tool call's error count once, and so does a row
// delivered twice. The time window applies to the errors' own time; the other run filters to
// their runs. Identifiers are fixed here; every value is a {name:Type} parameter.
import type { ErrorSignature, ErrorSource, ErrorsReport } from '../../schemas/api.js';
import type { QueryParams, Storage } from '../gateway.js';
import { isoTime, num, runStepPath } from './row-conversions.js';
import { FAILED_SQL } from './run-lifecycle-sql.js';
import { EMPTY_FILTERS, narrowsRuns, runPairsIn, type RunFilters } from './run-filters.js';
import { ERROR_COLUMNS, summarySql } from './run-summary-sql.js';
import { errorRowsSql, SIGNATURE_SQL } from './error-rows-sql.js';

/** Bars of a signature's trend over the window. */
export const TREND_BUCKETS = 12;
/** Example errors listed per signature. */
const EXAMPLES = 3;
/** The row an occurrence is named by: its tool call when it has one, else its first row. */
const FIRST_ROW = "(source != 'tool_call', ts)";

export interface ErrorsOptions {
  limit: number;
  /** The window's end when the filters leave it open (now). */
  now: number;
  /** Only these signatures. */
  signatures?: string[];
}

export async function getErrors(storage: Storage, f: RunFilters, o: ErrorsOptions): Promise<ErrorsReport> {
  const params: QueryParams = { e_limit: o.limit, e_buckets: TREND_BUCKETS };
  const projectCond = f.project.length ? 'project IN {e_project:Array(String)}' : '';
  if (f.project.length) params.e_project = f.project;
  // The runs in view: every run filter but the window, which bounds the errors' time instead,
  // each with its error occurrences: kept by the run analyzer (run_analysis.step_error_*), read
  // raw for runs not analysed since their last rows (the summary's two branches).
  const summary = await summarySql(storage, { ...f, from: undefined, to: undefined }, params, undefined, { errors: true });
  const windowConds: string[] = [];
  if (f.from !== undefined) {
    params.e_from = f.from;
    windowConds.push('ts >= fromUnixTimestamp64Milli({e_from:Int64})');
  }
  if (f.to !== undefined) {
    params.e_to = f.to;
    windowConds.push('ts < fromUnixTimestamp64Milli({e_to:Int64})');
  }
  const conds = [...windowConds];
  if (o.signatures?.length) {
    params.e_sigs = o.signatures;
    conds.push(`${SIGNATURE_SQL('template')} IN {e_sigs:Array(String)}`);
  }
  // One row per occurrence whose (first) time is in the window, of a run in view: each run's
  // arrays kept to those (a mask, when the window or signatures narrow them), so that `nth` (1
  // for a template's first occurrence in the run) and `k` (1 for the run's first) count runs
  // without hashing their ids.
  const keep = (column: string) => (conds.length ? `arrayFilter((v, kept) -> kept, ${column}, kept)` : column);
  const occurrences = `
    SELECT project, run_id, occurrence, tool, template, ts, failed, model, nth, k
    FROM (
      SELECT project, run_id, failed, model, ${keep('error_occurrences')} AS occurrences, ${keep('error_templates')} AS templates,
             ${keep('error_tools')} AS tools, ${keep('error_ts')} AS times, arrayEnumerateUniq(templates) AS nths, arrayEnumerate(templates) AS ks
      FROM (
        SELECT project, run_id, ${FAILED_SQL} AS failed, model, ${ERROR_COLUMNS.join(', ')}
               ${conds.length ? `, arrayMap((template, ts) -> ${conds.join(' AND ')}, error_templates, error_ts) AS kept` : ''}
        FROM (${summary}) WHERE notEmpty(error_templates)
      )
      ${conds.length ? 'WHERE has(kept, 1)' : ''}
    )
    ARRAY JOIN occurrences AS occurrence, templates AS template, tools AS tool, times AS ts, nths AS nth, ks AS k`;
  // One pass: the signatures of the page and, over all of them (window functions, before the
  // LIMIT), the totals. The trend's bars run from the window's start (all time: the first error
  // in view, t0) to its end. An example is kept as (-time, project, run, occurrence); its details
  // are read below.
  const to = f.to ?? o.now;
  params.e_to_ms = to;
  const t0 = f.from !== undefined ? '{e_from:Int64}' : 'toUnixTimestamp64Milli(t0)';
  const width = `greatest(1, intDiv({e_to_ms:Int64} - ${t0} + {e_buckets:UInt8} - 1, {e_buckets:UInt8}))`;
  const rows = await storage.query<Record<string, unknown>>(
    `SELECT template, ${SIGNATURE_SQL('template')} AS signature, count() AS occurrences,
              countIf(nth = 1) AS runs, countIf(nth = 1 AND failed) AS failed_runs, min(ts) AS first_in_window, max(ts) AS last_seen,
              sumMapIf(map(tool, toUInt64(1)), tool != '') AS tool_counts, sumMap(map(model, toUInt64(1))) AS model_counts,
              sumMap([toUInt8(least({e_buckets:UInt8} - 1, greatest(0, intDiv(toUnixTimestamp64Milli(ts) - ${t0}, ${width}))))], [toUInt64(1)]) AS trend,
              groupArraySorted(${EXAMPLES})((-toUnixTimestamp64Milli(ts), project, run_id, occurrence)) AS latest,
              any(${t0}) AS trend_from,
              sum(occurrences) OVER () AS total_occurrences, count() OVER () AS total_signatures,
              sum(countIf(k = 1)) OVER () AS total_runs
       FROM (SELECT *${f.from !== undefined ? '' : ', min(ts) OVER () AS t0'} FROM (${occurrences}))
       GROUP BY template
       ORDER BY runs DESC, occurrences DESC, template
       LIMIT {e_limit:UInt32}`,
    params,
  );
  const top = rows[0];
  if (!top) return { occurrences: 0, signatures: 0, runs: 0, from: f.from === undefined ? null : new Date(f.from).toISOString(), to: new Date(to).toISOString(), items: [] };
  const from = num(top.trend_from);

  const templates = rows.map((r) => String(r.template));
  params.e_templates = templates;
  // The latest occurrences of each signature (newest first), its examples: read by their runs
  // (the tables' key: only those runs' granules are read), each named as in the pass above (by
  // its tool call when it has one) with that row's message. The runs' other errors come along
  // and are passed over here (a filter on the templates made the engine read the granules twice).
  const latest = rows.flatMap((r) =>
    (r.latest as unknown[][]).map(([negTs, project, runId, occurrence]) => ({
      template: String(r.template),
      project: String(project),
      runId: String(runId),
      occurrence: String(occurrence),
      ts: -num(negTs),
    })),
  );
  params.e_ex_p = latest.map((e) => e.project);
  params.e_ex_r = latest.map((e) => e.runId);
  const exampleRuns = runPairsIn('e_ex_p', 'e_ex_r');
  const [firsts, named] = await Promise.all([
    // First seen over every run of the projects asked for, whatever the window and filters: with
    // no window start and no filter but the projects (a window's end leaves the first inside
    // it), the pass above has read every error of them, and its first is that one.
    f.from === undefined && !narrowsRuns(f)
      ? Promise.resolve([])
      : firstSeenOf(storage, f.project, templates),
    // An occurrence is named by its first row (its tool call's when it has one), whatever the window.
    storage.query<Record<string, unknown>>(
      `SELECT template, project, run_id, occurrence, argMin(source, ${FIRST_ROW}) AS e_source, argMin(step, ${FIRST_ROW}) AS e_step,
              argMin(tool, ${FIRST_ROW}) AS e_tool, argMin(substringUTF8(message, 1, 300), ${FIRST_ROW}) AS e_message
       FROM (${errorRowsSql(projectCond ? `${projectCond} AND ${exampleRuns}` : exampleRuns)})
       GROUP BY template, project, run_id, occurrence`,
      params,
    ),
  ]);
  const exampleKey = (...parts: unknown[]) => parts.map(String).join('\u0000');
  const byKey = new Map(named.map((n) => [exampleKey(n.template, n.project, n.run_id, n.occurrence), n]));
  const examples: Record<string, unknown>[] = latest.flatMap((e) => {
    const n = byKey.get(exampleKey(e.template, e.project, e.runId, e.occurrence));
    return n ? [{ template: e.template, project: e.project, run_id: e.runId, source: n.e_source, step: n.e_step, tool: n.e_tool, message: n.e_message, ts: new Date(e.ts).toISOString() }] : [];
  });
  const firstSeen = new Map(firsts.map((r) => [String(r.template), isoTime(r.first_seen)]));
  const items: ErrorSignature[] = rows.map((r) => {
    const template = String(r.template);
    const first = firstSeen.get(template) ?? isoTime(r.first_in_window);
    return {
      signature: String(r.signature),
      template,
      occurrences: num(r.occurrences),
      runs: num(r.runs),
      failed_runs: num(r.failed_runs),
      first_seen: first,
      last_seen: isoTime(r.last_seen),
      new_in_window: f.from !== undefined && first !== null && Date.parse(first) >= f.from,
      tools: mostFrequent(r.tool_counts),
      models: mostFrequent(r.model_counts),
      trend: trendOf(r.trend),
      examples: examples
        .filter((e) => String(e.template) === template)
        .map((e) => {
          const step = e.step === null || e.step === undefined ? null : num(e.step);
          const runId = String(e.run_id);
          return {
            project: String(e.project),
            run_id: runId,
            step,
            source: errorSource(e.source),
            tool: String(e.tool),
            message: String(e.message ?? ''),
            at: isoTime(e.ts),
            link: runStepPath(runId, step),
          };
        }),
    };
  });
  return {
    occurrences: num(top.total_occurrences),
    signatures: num(top.total_signatures),
    runs: num(top.total_runs),
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    items,
  };
}

/** The first occurrence of each of these templates over every run of the projects (all when none). */
async function firstSeenOf(storage: Storage, project: string[], templates: string[]): Promise<Record<string, unknown>[]> {
  const params: QueryParams = { e_templates: templates };
  const all = await summarySql(storage, { ...EMPTY_FILTERS, project }, params, undefined, { errors: true });
  return storage.query<Record<string, unknown>>(
    `SELECT template, min(ts) AS first_seen
     FROM (SELECT error_templates, error_ts FROM (${all}) WHERE hasAny(error_templates, {e_templates:Array(String)}))
     ARRAY JOIN error_templates AS template, error_ts AS ts
     WHERE template IN {e_templates:Array(String)} GROUP BY template`,
    params,
  );
}

/** Tools and models listed per signature. */
const MOST_FREQUENT = 3;

/** The most frequent keys of a sumMap(map(key, 1)) answer ({key: count}), ties by name: the same whatever the rows' order. */
function mostFrequent(map: unknown): string[] {
  const counts = map !== null && typeof map === 'object' ? Object.entries(map as Record<string, unknown>) : [];
  return counts
    .map(([key, n]) => ({ key, n: num(n) }))
    .sort((a, b) => b.n - a.n || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, MOST_FREQUENT)
    .map((x) => x.key);
}

/** The bars of a sumMap([bar], [1]) answer: ([bars], [counts]) as TREND_BUCKETS counts. */
function trendOf(map: unknown): number[] {
  const out = new Array<number>(TREND_BUCKETS).fill(0);
  const [bars, counts] = Array.isArray(map) ? (map as [unknown[], unknown[]]) : [[], []];
  bars.forEach((b, i) => (out[num(b)] = num(counts[i])));
  return out;
}

const ERROR_SOURCES: readonly ErrorSource[] = ['step', 'tool_call', 'run_end', 'final_observation'];

function errorSource(v: unknown): ErrorSource {
  return ERROR_SOURCES.find((s) => s === v) ?? 'step';
}
