// Reads runs back whole from ClickHouse for the analyzer: the watermark first (what the
// analysis will cover), then each run's summary, steps, tool calls and verifier score.
import type { QueryParams, Storage } from '../../storage/gateway.js';
import { EMPTY_FILTERS } from '../../server/runs/run-filters.js';
import { rawSummarySql } from '../../server/runs/run-summary-sql.js';
import type { RunRows, StoredStep, StoredToolCall, SummaryRow } from './analyze-run.js';


export async function readRuns(storage: Storage, project: string, runIds: string[]): Promise<RunRows[]> {
  const p = { project, ids: runIds };
  // Key columns only: with FINAL they may filter before the versions are collapsed (PREWHERE, much
  // cheaper than WHERE, which filters after).
  const where = 'project = {project:String} AND run_id IN {ids:Array(String)}';
  const marks = await storage.query<{ run_id: string; wm: string }>(
    `SELECT run_id, toString(max(ingested_at)) AS wm FROM runs WHERE ${where} GROUP BY run_id`,
    p,
  );
  if (marks.length === 0) return [];
  const params: QueryParams = { ...p };
  const [summaries, steps, calls, scores] = await Promise.all([
    storage.query<SummaryRow>(`SELECT * FROM (${rawSummarySql({ ...EMPTY_FILTERS, project: [project] }, params, `run_id IN {ids:Array(String)}`)})`, params),
    storage.query<Record<string, unknown>>(
      `SELECT run_id, step, toUnixTimestamp64Milli(ts) AS ts, action, observation, error_type, error_message,
              input_tokens, output_tokens, cost_usd, latency_ms
       FROM steps FINAL PREWHERE ${where}`,
      p,
    ),
    storage.query<Record<string, unknown>>(
      `SELECT run_id, step, toUnixTimestamp64Milli(ts) AS ts, tool, arguments, status, error_type, error_message, output, duration_ms
       FROM tool_calls FINAL PREWHERE ${where}`,
      p,
    ),
    storage.query<{ run_id: string; value: number }>(
      `SELECT run_id, argMax(value, ts) AS value FROM scores FINAL PREWHERE ${where} AND source = 'verifier' GROUP BY run_id`,
      p,
    ),
  ]);
  const stepsBy = group(steps, (r): StoredStep => ({
    step: Number(r.step),
    ts: Number(r.ts),
    action: String(r.action),
    observation: String(r.observation),
    error_type: String(r.error_type),
    error_message: String(r.error_message),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    cost_usd: Number(r.cost_usd),
    latency_ms: r.latency_ms === null ? null : Number(r.latency_ms),
  }));
  const callsBy = group(calls, (r): StoredToolCall => ({
    step: r.step === null ? null : Number(r.step),
    ts: Number(r.ts),
    tool: String(r.tool),
    arguments: String(r.arguments),
    status: r.status === 'error' ? 'error' : 'ok',
    error_type: String(r.error_type),
    error_message: String(r.error_message),
    output: String(r.output),
    duration_ms: r.duration_ms === null ? null : Number(r.duration_ms),
  }));
  const score = new Map(scores.map((s) => [s.run_id, Number(s.value)]));
  const mark = new Map(marks.map((m) => [m.run_id, m.wm]));
  const out: RunRows[] = [];
  for (const summary of summaries) {
    const id = String(summary.run_id);
    const wm = mark.get(id);
    if (wm === undefined) continue;
    out.push({
      summary,
      steps: stepsBy.get(id) ?? [],
      tool_calls: callsBy.get(id) ?? [],
      verifier_score: score.get(id) ?? null,
      source_ingested_at: wm,
    });
  }
  return out;
}

function group<T>(rows: Record<string, unknown>[], map: (r: Record<string, unknown>) => T): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const id = String(r.run_id);
    const list = out.get(id);
    if (list) list.push(map(r));
    else out.set(id, [map(r)]);
  }
  return out;
}

