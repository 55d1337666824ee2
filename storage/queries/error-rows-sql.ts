// The error rows of steps and tool calls with their templates (0017_error_templates.sql), and
// signature ids: shared by GET /api/v1/errors and the run filter `error_signature`. Pure SQL text.

/** A template's signature id, in SQL. */
export const SIGNATURE_SQL = (template: string) => `lower(hex(cityHash64(${template})))`;

/**
 * Every error row of steps and tool calls (of `cond`'s rows) with its template, as (project,
 * run_id, occurrence, source, step, tool, template, message, ts): `occurrence` is the step (or,
 * for a tool call without one, the call) it happened in.
 */
export function stepErrorRowsSql(cond: string): string {
  const where = `error_template != ''${cond ? ` AND ${cond}` : ''}`;
  return `SELECT project, run_id, toString(step) AS occurrence, 'step' AS source, toNullable(step) AS step, '' AS tool, error_template AS template, error_message AS message, ts
          FROM steps WHERE ${where}
          UNION ALL
          SELECT project, run_id, ifNull(toString(step), concat('call:', call_id)) AS occurrence, 'tool_call' AS source, step, toString(tool) AS tool,
                 error_template AS template, error_message AS message, ts
          FROM tool_calls WHERE ${where}`;
}

/**
 * The error rows of stepErrorRowsSql and the final error of each failed run
 * (run_analysis.final_error: run_end's error message or the last step's observation,
 * 0019_final_errors.sql), whose occurrence is `end` and counts apart from its steps'.
 */
export function errorRowsSql(projectCond: string): string {
  return `${stepErrorRowsSql(projectCond)}
          UNION ALL
          SELECT project, run_id, 'end' AS occurrence, toString(final_error_source) AS source, final_error_step AS step, '' AS tool,
                 final_error_template AS template, final_error AS message, ifNull(ended_at, last_event_at) AS ts
          FROM run_analysis FINAL WHERE final_error_template != ''${projectCond ? ` AND ${projectCond}` : ''}`;
}

/**
 * The error occurrences of steps and tool calls of `cond`'s rows, one row per (project, run_id,
 * occurrence, template): a step's error and its tool call's error of one template, or a row
 * delivered twice, are one. `tool` is the tool of its first tool-call row ('' when none), `ts`
 * the time of its first row. The run analyzer stores each run's as its rollup
 * (run_analysis.step_error_*, 0021_error_rollup.sql); runs not analysed since their last rows
 * were stored are read through it raw. The migration writes this SQL out to fill in the runs
 * analysed before it (error-rollup-upgrade.integration.test.ts checks the two agree).
 */
export function errorOccurrencesSql(cond: string): string {
  // argMinIf rather than argMin by (source, ts): a tuple as the key cost 2 s of 6 over 3.5
  // million error rows. Named apart from the columns it aggregates (an alias `ts` would be read
  // inside the aggregates), then renamed.
  return `SELECT project, run_id, occurrence, template, first_tool AS tool, first_ts AS ts FROM
          (
            SELECT project, run_id, occurrence, template, argMinIf(tool, ts, tool != '') AS first_tool, min(ts) AS first_ts
            FROM (${stepErrorRowsSql(cond)})
            GROUP BY project, run_id, occurrence, template
          )`;
}

/**
 * Each run's occurrences of errorOccurrencesSql as the parallel arrays run_analysis keeps
 * (step_error_*), one row per (project, run_id): what the analyzer stores, and what the summary
 * reads for runs read raw.
 */
export function runErrorOccurrencesSql(cond: string): string {
  return `SELECT project, run_id, groupArray(occurrence) AS step_error_occurrences, groupArray(template) AS step_error_templates,
                 groupArray(tool) AS step_error_tools, groupArray(ts) AS step_error_ts
          FROM (${errorOccurrencesSql(cond)})
          GROUP BY project, run_id`;
}

/**
 * Runs with an error of one of the signatures in `param` (an Array(String) parameter), as
 * (project, run_id), among the rows `cond` selects (all when empty): the run filter
 * `error_signature` over runs read raw.
 */
export function runsWithSignatureSql(param: string, cond = ''): string {
  return `SELECT DISTINCT project, run_id FROM (${errorRowsSql(cond)}) WHERE ${SIGNATURE_SQL('template')} IN {${param}:Array(String)}`;
}

/** Over a row of run_analysis: the run has an error of one of the signatures in `param` (its rollup, 0021_error_rollup.sql). */
export function analysisHasSignatureSql(param: string): string {
  return `(arrayExists(t -> ${SIGNATURE_SQL('t')} IN {${param}:Array(String)}, step_error_templates)
           OR (final_error_template != '' AND ${SIGNATURE_SQL('final_error_template')} IN {${param}:Array(String)}))`;
}

