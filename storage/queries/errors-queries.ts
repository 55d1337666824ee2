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
import type { RunFilters } from './run-filters.js';
import { summarySql } from './run-summary-sql.js';
import { errorRowsSql, SIGNATURE_SQL } from './error-rows-sql.js';

/** Bars of a signature's trend over the window. */
export const TREND_BUCKETS = 12;
/** Example errors listed per signature. */
const EXAMPLES = 3;

export interface ErrorsOptions {
  limit: number;
  /** The window's end when the filters leave it open (now). */
  now: number;
  /** Only these signatures. */
  signatures?: string[];
}

export async function getErrors(storage: Storage, f: RunFilters, o: ErrorsOptions): Promise<ErrorsReport> {
  const params: QueryParams = { e_limit: o.limit, e_examples: EXAMPLES, e_buckets: TREND_BUCKETS };
  const projectCond = f.project.length ? 'project IN {e_project:Array(String)}' : '';
  if (f.project.length) params.e_project = f.project;
  // The runs in view: every run filter but the window, which bounds the errors' time instead.
  const summary = await summarySql(storage, { ...f, from: undefined, to: undefined }, params);
  const windowConds: string[] = [];
  if (f.from !== undefined) {
    params.e_from = f.from;
    windowConds.push('ts >= fromUnixTimestamp64Milli({e_from:Int64})');
  }
  if (f.to !== undefined) {
    params.e_to = f.to;
    windowConds.push('ts < fromUnixTimestamp64Milli({e_to:Int64})');
  }
  // The trend's span: the window, or (all time) from the first error in view to now.
  const sigFilter = o.signatures?.length ? `AND ${SIGNATURE_SQL('template')} IN {e_sigs:Array(String)}` : '';
  if (o.signatures?.length) params.e_sigs = o.signatures;
  // One row per occurrence, in the window, of a run in view: named by its tool call when it has
  // one (its tool), else by its first row. Grouped rather than sorted, and without the message
  // (read for the examples alone): the error rows of a large window are hundreds of thousands.
  const first = "(source != 'tool_call', ts)";
  const occurrences = `
    SELECT e.project AS project, e.run_id AS run_id, e.occurrence AS occurrence, e.e_source AS source, e.e_step AS step, e.e_tool AS tool,
           e.template AS template, e.first_ts AS ts, r.failed AS failed, r.model AS model
    FROM (SELECT project, run_id, occurrence, template, argMin(source, ${first}) AS e_source, argMin(step, ${first}) AS e_step,
                 argMin(tool, ${first}) AS e_tool, min(ts) AS first_ts
          FROM (${errorRowsSql(projectCond)}) ${windowConds.length ? `WHERE ${windowConds.join(' AND ')}` : ''}
          GROUP BY project, run_id, occurrence, template) AS e
    INNER JOIN (SELECT project, run_id, ${FAILED_SQL} AS failed, model FROM (${summary})) AS r USING (project, run_id)
    WHERE 1 ${sigFilter}`;
  const [totals] = await storage.query<Record<string, unknown>>(
    `SELECT count() AS occurrences, uniqExact(template) AS signatures, uniqExact(project, run_id) AS runs, toUnixTimestamp64Milli(min(ts)) AS first
     FROM (${occurrences})`,
    params,
  );
  const to = f.to ?? o.now;
  if (!num(totals?.occurrences)) return { occurrences: 0, signatures: 0, runs: 0, from: f.from === undefined ? null : new Date(f.from).toISOString(), to: new Date(to).toISOString(), items: [] };
  // The trend's bars: TREND_BUCKETS from the window's start (all time: the first error in view) to its end.
  const from = f.from ?? num(totals.first);
  params.e_t0 = from;
  params.e_width = Math.max(1, Math.ceil((to - from) / TREND_BUCKETS));
  const rows = await storage.query<Record<string, unknown>>(
    `SELECT template, ${SIGNATURE_SQL('template')} AS signature, count() AS occurrences, uniqExact(project, run_id) AS runs,
            uniqExactIf((project, run_id), failed) AS failed_runs, min(ts) AS first_in_window, max(ts) AS last_seen,
            topKIf(3)(tool, tool != '') AS tools, topK(3)(model) AS models,
            sumMap([toUInt8(least({e_buckets:UInt8} - 1, greatest(0, intDiv(toUnixTimestamp64Milli(ts) - {e_t0:Int64}, {e_width:Int64}))))], [toUInt64(1)]) AS trend,
            groupArraySorted(${EXAMPLES})((-toUnixTimestamp64Milli(ts), run_id, project, occurrence, step, source, tool)) AS latest
     FROM (${occurrences})
     GROUP BY template
     ORDER BY runs DESC, occurrences DESC, template
     LIMIT {e_limit:UInt32}`,
    params,
  );

  const templates = rows.map((r) => String(r.template));
  params.e_templates = templates;
  // The latest occurrences of each signature (newest first; a tie by run id), its examples.
  const examples = rows.flatMap((r) =>
    (r.latest as unknown[][]).map(([negTs, runId, project, occurrence, step, source, tool]) => ({
      template: r.template, project, run_id: runId, occurrence, step, source, tool, ts: new Date(-num(negTs)).toISOString(),
    })),
  );
  // First seen over every run of the projects asked for, whatever the window and filters.
  const firsts = await storage.query<Record<string, unknown>>(
    `SELECT template, min(ts) AS first_seen FROM (${errorRowsSql(projectCond)}) WHERE template IN {e_templates:Array(String)} GROUP BY template`,
    params,
  );
  // The examples' messages: the row each occurrence was named by.
  params.e_ex_project = examples.map((e) => String(e.project));
  params.e_ex_run = examples.map((e) => String(e.run_id));
  params.e_ex_occurrence = examples.map((e) => String(e.occurrence));
  params.e_ex_source = examples.map((e) => String(e.source));
  const messages = examples.length === 0 ? [] : await storage.query<Record<string, unknown>>(
    `SELECT project, run_id, occurrence, source, template, any(substringUTF8(message, 1, 300)) AS message
     FROM (${errorRowsSql(`${projectCond ? `${projectCond} AND ` : ''}run_id IN {e_ex_run:Array(String)}`)})
     WHERE (project, run_id, occurrence, source) IN (SELECT x.1, x.2, x.3, x.4 FROM (SELECT arrayJoin(arrayZip({e_ex_project:Array(String)}, {e_ex_run:Array(String)}, {e_ex_occurrence:Array(String)}, {e_ex_source:Array(String)})) AS x))
       AND template IN {e_templates:Array(String)}
     GROUP BY project, run_id, occurrence, source, template`,
    params,
  );
  const exampleKey = (r: Record<string, unknown>) => [r.project, r.run_id, r.occurrence, r.source, r.template].map(String).join('\u0000');
  const messageOf = new Map(messages.map((m) => [exampleKey(m), String(m.message)]));
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
      tools: (r.tools as unknown[]).map(String),
      models: (r.models as unknown[]).map(String),
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
            message: messageOf.get(exampleKey(e)) ?? '',
            at: isoTime(e.ts),
            link: runStepPath(runId, step),
          };
        }),
    };
  });
  return {
    occurrences: num(totals?.occurrences),
    signatures: num(totals?.signatures),
    runs: num(totals?.runs),
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    items,
  };
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
