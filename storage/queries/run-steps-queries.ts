// The steps of one run for the trajectory viewer: a compact outline of every step (for the
// chart and the list's skeleton) and windows of full steps with their tool calls, so a long run
// never needs one big response.
import type { StepIndex, StepRow, StepWindow, ToolCallRow } from '../../schemas/api.js';
import type { Storage } from '../gateway.js';
import { ApiError } from '../../schemas/api-error.js';
import { isoTime, num, numOrNull, parseJsonObject, usageFields } from './row-conversions.js';

/** The project of a run: the one asked for, else the only one holding the run id (404 / 409 otherwise). */
export async function resolveRunProject(storage: Storage, runId: string, project: string | undefined): Promise<string> {
  const rows = await storage.query<{ project: string }>(
    `SELECT DISTINCT project FROM runs WHERE run_id = {run_id:String} ${project ? 'AND project = {project:String}' : ''} LIMIT 2`,
    project ? { run_id: runId, project } : { run_id: runId },
  );
  if (rows.length === 0) throw new ApiError(404, 'not_found', `run ${runId} not found`);
  if (rows.length > 1) throw new ApiError(409, 'ambiguous_run', `run ${runId} exists in several projects; add ?project=`);
  return String(rows[0].project);
}

export async function getStepIndex(storage: Storage, runId: string, projectAsked: string | undefined): Promise<StepIndex> {
  const project = await resolveRunProject(storage, runId, projectAsked);
  const p = { project, run_id: runId };
  const [steps, calls] = await Promise.all([
    storage.query<Record<string, unknown>>(
      `SELECT step, input_tokens, output_tokens, cost_usd, latency_ms, (error_type != '' OR error_message != '') AS failed
       FROM steps FINAL PREWHERE project = {project:String} AND run_id = {run_id:String} ORDER BY step`,
      p,
    ),
    // The first call's tool by time (tool is LowCardinality and ts a number: about 50 ms more on
    // a 100,000-step run than the counts alone).
    storage.query<Record<string, unknown>>(
      `SELECT step, count() AS calls, countIf(status = 'error') AS errors, argMin(tool, ts) AS first_tool
       FROM tool_calls FINAL PREWHERE project = {project:String} AND run_id = {run_id:String} WHERE step IS NOT NULL GROUP BY step`,
      p,
    ),
  ]);
  const byStep = new Map(calls.map((c) => [num(c.step), { calls: num(c.calls), errors: num(c.errors), tool: String(c.first_tool ?? '') }]));
  const out: StepIndex = { project, run_id: runId, step: [], input_tokens: [], output_tokens: [], cost_usd: [], latency_ms: [], tool_calls: [], tools: [''], tool: [], error: [] };
  // Tool names go once into `tools`, steps point at them: a few bytes a step, not a name each.
  const toolNumber = new Map<string, number>([['', 0]]);
  for (const s of steps) {
    const step = num(s.step);
    const c = byStep.get(step);
    out.step.push(step);
    out.input_tokens.push(num(s.input_tokens));
    out.output_tokens.push(num(s.output_tokens));
    out.cost_usd.push(Number(num(s.cost_usd).toPrecision(6)));
    out.latency_ms.push(numOrNull(s.latency_ms));
    out.tool_calls.push(c?.calls ?? 0);
    const tool = c?.tool ?? '';
    let n = toolNumber.get(tool);
    if (n === undefined) {
      n = out.tools.push(tool) - 1;
      toolNumber.set(tool, n);
    }
    out.tool.push(n);
    out.error.push(Boolean(num(s.failed)) || (c?.errors ?? 0) > 0 ? 1 : 0);
  }
  return out;
}

/**
 * Steps `offset`…`offset+limit-1` (positions in step order) with the tool calls of those steps;
 * the first window also carries the calls recorded without a step.
 */
export async function getStepWindow(storage: Storage, runId: string, project: string, offset: number, limit: number): Promise<StepWindow> {
  const p = { project, run_id: runId, off: offset, lim: limit };
  const windowSteps = `SELECT step FROM steps FINAL PREWHERE project = {project:String} AND run_id = {run_id:String}
                       ORDER BY step LIMIT {lim:UInt32} OFFSET {off:UInt32}`;
  const [steps, calls] = await Promise.all([
    storage.query<Record<string, unknown>>(
      `SELECT step, ts, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
              cost_usd, cost_estimated, latency_ms, action, observation, error_type, error_message, truncated, metadata
       FROM steps FINAL PREWHERE project = {project:String} AND run_id = {run_id:String}
       ORDER BY step LIMIT {lim:UInt32} OFFSET {off:UInt32}`,
      p,
    ),
    storage.query<Record<string, unknown>>(
      `SELECT call_id, step, ts, tool, arguments, status, error_type, error_message, duration_ms, output, truncated
       FROM tool_calls FINAL PREWHERE project = {project:String} AND run_id = {run_id:String}
         WHERE (step IN (${windowSteps}) ${offset === 0 ? 'OR step IS NULL' : ''})
       ORDER BY ifNull(step, 4294967295), ts, call_id`,
      p,
    ),
  ]);
  return { project, run_id: runId, offset, steps: steps.map(toStepRow), tool_calls: calls.map(toToolCallRow) };
}

export function toStepRow(r: Record<string, unknown>): StepRow {
  return {
    step: num(r.step),
    ts: isoTime(r.ts)!,
    model: String(r.model),
    ...usageFields(r),
    latency_ms: numOrNull(r.latency_ms),
    action: String(r.action),
    observation: String(r.observation),
    error_type: String(r.error_type),
    error_message: String(r.error_message),
    truncated: Boolean(r.truncated),
    metadata: parseJsonObject(r.metadata),
  };
}

export function toToolCallRow(r: Record<string, unknown>): ToolCallRow {
  return {
    call_id: String(r.call_id),
    step: numOrNull(r.step),
    ts: isoTime(r.ts)!,
    tool: String(r.tool),
    arguments: String(r.arguments),
    status: r.status === 'error' ? 'error' : 'ok',
    error_type: String(r.error_type),
    error_message: String(r.error_message),
    duration_ms: numOrNull(r.duration_ms),
    output: String(r.output),
    truncated: Boolean(r.truncated),
  };
}
