// The run analyzer's latest verdict of one run (run_analysis), for GET /api/v1/runs/:run_id.
import type { LoopInfo, RunAnalysis } from '../../schemas/api.js';
import type { Storage } from '../gateway.js';
import { isoTime, num } from './row-conversions.js';

export async function getRunAnalysis(storage: Storage, project: string, runId: string): Promise<RunAnalysis | null> {
  const [r] = await storage.query<Record<string, unknown>>(
    `SELECT a.*, a.source_ingested_at = w.wm AS fresh
     FROM (SELECT * FROM run_analysis FINAL WHERE project = {project:String} AND run_id = {run_id:String}) AS a
     LEFT JOIN (SELECT project, run_id, max(ingested_at) AS wm FROM runs
                WHERE project = {project:String} AND run_id = {run_id:String} GROUP BY project, run_id) AS w
       ON w.project = a.project AND w.run_id = a.run_id`,
    { project, run_id: runId },
  );
  if (!r) return null;
  const evidence = parseJson<{ evidence: RunAnalysis['suspicious']['evidence']; evidence_steps: number[] }>(r.suspicious_evidence, {
    evidence: [],
    evidence_steps: [],
  });
  const toolCalls = num(r.tool_calls);
  const toolErrors = num(r.tool_errors);
  const actions = num(r.actions);
  return {
    analyzed_at: isoTime(r.analyzed_at)!,
    fresh: Boolean(r.fresh),
    failure: r.failure_mode ? { mode: String(r.failure_mode), rule: String(r.failure_rule), reason: String(r.failure_reason) } : null,
    loops: parseJson<LoopInfo[]>(r.loops, []),
    suspicious: {
      suspicious: Boolean(r.suspicious),
      reasons: (r.suspicious_reasons as string[] | undefined) ?? [],
      evidence: evidence.evidence,
      evidence_steps: evidence.evidence_steps,
    },
    hacking: {
      kinds: (r.hacking_kinds as string[] | undefined) ?? [],
      evidence: parseJson<RunAnalysis['hacking']['evidence']>(r.hacking_evidence, []),
    },
    process: {
      tool_calls: toolCalls,
      tool_errors: toolErrors,
      self_corrected: num(r.self_corrected),
      self_correction_rate: toolErrors ? num(r.self_corrected) / toolErrors : null,
      actions,
      rework_repeated: num(r.rework_repeated),
      rework_rate: actions ? num(r.rework_repeated) / actions : null,
    },
  };
}

function parseJson<T>(v: unknown, fallback: T): T {
  if (typeof v !== 'string' || !v) return fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
}
