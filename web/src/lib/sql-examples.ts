// Example queries of the SQL console, written against our schema (migrations 0001, 0002). Each
// names the tables and columns it needs; the console offers only those the schema has. The
// failure-mode columns come from the analyzer's own list of modes.
import { FAILURE_MODES } from '../../../analytics/failure-modes/failure-types.js';
import type { SqlSchemaTable } from '../../../schemas/api.js';
import { hasColumns } from './sql-schema.js';

export interface ExampleQuery {
  id: string;
  title: string;
  description: string;
  sql: string;
  requires: Record<string, string[]>;
  /** The chart to show first: column names of x and y, and the kind. */
  chart?: { x: string; y: string; kind: 'line' | 'bar' };
}

export const EXAMPLE_QUERIES: readonly ExampleQuery[] = [
  {
    id: 'loop-waste-by-model',
    title: 'Loop waste by model',
    description: 'Runs with dead loops and the steps and dollars spent inside loops, per model',
    requires: { run_analysis: ['model', 'loop_count', 'loop_steps', 'loop_cost_usd', 'cost_usd', 'steps'] },
    chart: { x: 'model', y: 'usd_in_loops', kind: 'bar' },
    sql: `SELECT
    model,
    count() AS runs,
    countIf(loop_count > 0) AS runs_with_loops,
    sum(loop_steps) AS steps_in_loops,
    round(sum(loop_steps) / nullIf(sum(steps), 0) * 100, 1) AS loop_step_pct,
    round(sum(loop_cost_usd), 2) AS usd_in_loops,
    round(sum(loop_cost_usd) / nullIf(sum(cost_usd), 0) * 100, 1) AS loop_cost_pct
FROM run_analysis FINAL
GROUP BY model
ORDER BY usd_in_loops DESC`,
  },
  {
    id: 'failure-modes-by-category',
    title: 'Failure modes by category, last 7 days',
    description: 'Runs that did not succeed in the last 7 days, per task category, one column per failure mode',
    requires: { run_analysis: ['task_category', 'failure_mode', 'started_at'] },
    chart: { x: 'task_category', y: 'failed', kind: 'bar' },
    sql: `SELECT
    task_category,
    countIf(failure_mode != '') AS failed,
${FAILURE_MODES.map((m) => `    countIf(failure_mode = '${m}') AS ${m}`).join(',\n')}
FROM run_analysis FINAL
WHERE started_at >= now() - INTERVAL 7 DAY
GROUP BY task_category
ORDER BY failed DESC`,
  },
  {
    id: 'cost-per-solved-by-agent-version',
    title: 'Cost per solved task by agent version',
    description: 'Spend divided by successful runs, per agent and version',
    requires: { run_analysis: ['agent_name', 'agent_version', 'status', 'cost_usd'] },
    chart: { x: 'agent', y: 'usd_per_solved', kind: 'bar' },
    sql: `SELECT
    concat(agent_name, '@', agent_version) AS agent,
    count() AS runs,
    countIf(status = 'success') AS solved,
    round(sum(cost_usd), 2) AS total_usd,
    round(sum(cost_usd) / nullIf(countIf(status = 'success'), 0), 3) AS usd_per_solved
FROM run_analysis FINAL
GROUP BY agent
ORDER BY agent`,
  },
  {
    id: 'steps-and-errors-per-tool',
    title: 'Steps and tool errors per tool',
    description: 'Calls, steps that used the tool, errors and time spent, per tool',
    requires: { tool_calls: ['tool', 'status', 'run_id', 'step', 'duration_ms'] },
    chart: { x: 'tool', y: 'errors', kind: 'bar' },
    sql: `SELECT
    tool,
    count() AS calls,
    uniqExact(run_id, step) AS steps,
    countIf(status = 'error') AS errors,
    round(countIf(status = 'error') / count() * 100, 1) AS error_pct,
    round(avg(duration_ms)) AS avg_duration_ms
FROM tool_calls FINAL
GROUP BY tool
ORDER BY calls DESC`,
  },
];

/** The examples whose tables and columns exist in `tables`. */
export function availableExamples(tables: readonly SqlSchemaTable[], examples: readonly ExampleQuery[] = EXAMPLE_QUERIES): ExampleQuery[] {
  return examples.filter((e) => Object.entries(e.requires).every(([t, cols]) => hasColumns(tables, t, cols)));
}
