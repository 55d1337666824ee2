// Reads runs back whole from ClickHouse for the analyzer: each run's own fields (the runs
// table) with its watermark first (what the analysis will cover), then its steps, tool calls and
// verifier score; the run's counts and token sums are taken from its steps and calls as read.
//
// Steps and calls come without their texts: they are signed from the signature parts stored
// with them at ingest (sig_*). Texts are read in a second query, only for the runs that need
// them:
// - actions and arguments, observations and outputs: runs with rows stored before the parts
//   existed, and runs with a step of several calls (whose calls are put in action order by
//   their texts);
// - actions and arguments alone: ended runs (reward-hacking evidence looks at them, and suspicious
//   success at those of successes).
// Each run's rows come as one row of arrays, a column each: far fewer values for the engine to
// write and for us to parse than a row per step. Numbers come as Float64 (exact for counts and
// milliseconds), which JSON gives unquoted, where 64-bit integers would come as strings.
import type { QueryParams, Storage } from '../gateway.js';
import { runFieldsSql } from './run-summary-sql.js';
import type { RunRows, StepErrorColumns, StoredStep, StoredToolCall, SummaryRow } from '../../analytics/analyze-run.js';
import { RUN_STATUSES, VERDICT_SCORE, type RunStatus } from '../../schemas/events.js';
import { lastStep } from '../../analytics/final-error.js';
import { hasFailed, runOutcome } from '../../analytics/run-outcome.js';
import { runErrorOccurrencesSql } from './error-rows-sql.js';

/** A run's steps as columns (groupArray of each; a NULL latency is 0 with its flag set). */
interface StepColumns {
  run_id: string;
  step: number[];
  ts: number[];
  error_type: string[];
  error_message: string[];
  input_tokens: number[];
  output_tokens: number[];
  cost_usd: number[];
  latency: number[];
  latency_null: number[];
  sig_version: number[];
  sig_action: string[];
  sig_observation: string[];
  /** The run's token sums the summary carries (the step arrays do not hold these columns). */
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost_estimated: boolean;
}

/** A run's tool calls as columns (a NULL step or duration is 0 with its flag set). */
interface CallColumns {
  run_id: string;
  call_id: string[];
  call_step: number[];
  step_null: number[];
  ts: number[];
  tool: string[];
  status: string[];
  error_type: string[];
  error_message: string[];
  duration: number[];
  duration_null: number[];
  sig_version: number[];
  sig_call: string[];
  sig_output: string[];
}

// Key columns only: with FINAL they may filter before the versions are collapsed (PREWHERE, much
// cheaper than WHERE, which filters after).
const WHERE = 'project = {project:String} AND run_id IN {ids:Array(String)}';

export async function readRuns(storage: Storage, project: string, runIds: string[]): Promise<RunRows[]> {
  const p = { project, ids: runIds };
  // The run's own fields first, with its watermark (max(ingested_at)): what the analysis covers.
  // Rows stored after this read are analysed again (their events bring the run back). The counts
  // and sums come from the step and call reads below.
  const summaries = await storage.query<SummaryRow & { ingested_at: string }>(
    `SELECT * EXCEPT (failure_mode), failure_mode AS label_failure_mode FROM (${runFieldsSql(`WHERE ${WHERE}`)})`,
    p,
  );
  if (summaries.length === 0) return [];
  const [stepColumns, callColumns, scores, errors] = await Promise.all([
    storage.query<StepColumns>(
      `SELECT run_id, groupArray(step) AS step, groupArray(toFloat64(toUnixTimestamp64Milli(ts))) AS ts,
              groupArray(error_type) AS error_type, groupArray(error_message) AS error_message,
              groupArray(toFloat64(input_tokens)) AS input_tokens, groupArray(toFloat64(output_tokens)) AS output_tokens,
              groupArray(cost_usd) AS cost_usd,
              groupArray(ifNull(latency_ms, 0)) AS latency, groupArray(isNull(latency_ms)) AS latency_null,
              groupArray(sig_version) AS sig_version, groupArray(sig_action) AS sig_action, groupArray(sig_observation) AS sig_observation,
              toFloat64(sum(cache_read_tokens)) AS cache_read_tokens, toFloat64(sum(cache_write_tokens)) AS cache_write_tokens,
              toFloat64(sum(reasoning_tokens)) AS reasoning_tokens, max(cost_estimated) AS cost_estimated
       FROM steps FINAL PREWHERE ${WHERE} GROUP BY run_id`,
      p,
    ),
    storage.query<CallColumns>(
      `SELECT run_id, groupArray(call_id) AS call_id, groupArray(ifNull(step, 0)) AS call_step, groupArray(isNull(step)) AS step_null,
              groupArray(toFloat64(toUnixTimestamp64Milli(ts))) AS ts, groupArray(tool) AS tool, groupArray(status) AS status, groupArray(error_type) AS error_type, groupArray(error_message) AS error_message,
              groupArray(ifNull(duration_ms, 0)) AS duration, groupArray(isNull(duration_ms)) AS duration_null,
              groupArray(sig_version) AS sig_version, groupArray(sig_call) AS sig_call, groupArray(sig_output) AS sig_output
       FROM tool_calls FINAL PREWHERE ${WHERE} GROUP BY run_id`,
      p,
    ),
    // The latest verifier score of any name (the reward when run_end has none) and the verdict.
    storage.query<{ run_id: string; latest: number; verdict: number | null }>(
      `SELECT run_id, argMax(value, ts) AS latest,
              if(countIf(name = {vd_name:String}) > 0, argMaxIf(value, ts, name = {vd_name:String}), NULL) AS verdict
       FROM scores FINAL PREWHERE ${WHERE} AND source = {vd_source:String} GROUP BY run_id`,
      { ...p, vd_name: VERDICT_SCORE.name, vd_source: VERDICT_SCORE.source },
    ),
    // The run's error occurrences, by the SQL the errors endpoint reads unanalysed runs with.
    storage.query<StepErrorColumns & { run_id: string }>(runErrorOccurrencesSql(WHERE), p),
  ]);
  const errorsBy = new Map(
    errors.map(({ step_error_occurrences, step_error_templates, step_error_tools, step_error_ts, run_id }) => [
      run_id,
      { step_error_occurrences, step_error_templates, step_error_tools, step_error_ts },
    ]),
  );
  const verdictBy = new Map(scores.filter((s) => s.verdict !== null).map((s) => [s.run_id, Number(s.verdict)]));
  const stepTotals = new Map(stepColumns.map((c) => [c.run_id, c]));
  const stepsBy = new Map(stepColumns.map((c) => [c.run_id, stepsOf(c)]));
  const callsBy = new Map(callColumns.map((c) => [c.run_id, callsOf(c)]));
  const signRuns = runsSignedFromTexts(stepsBy, callsBy);
  const signing = new Set(signRuns);
  // Ended runs (reward-hacking evidence and, for successes, suspicious success look at their actions).
  const ended = summaries
    .filter((r) => RUN_STATUSES.includes(r.status as RunStatus))
    .map((r) => String(r.run_id))
    .filter((id) => !signing.has(id));
  // Failed runs: their last step's observation (the text a failure may only show there).
  const lastOfFailed = summaries.flatMap((r) => {
    const id = String(r.run_id);
    const failed = RUN_STATUSES.includes(r.status as RunStatus) && hasFailed(runOutcome(r.status as RunStatus, verdictBy.get(id) ?? null));
    const last = failed ? lastStep(stepsBy.get(id) ?? []) : null;
    return last === null ? [] : [[id, last] as [string, number]];
  });
  const [, , finals] = await Promise.all([
    signRuns.length > 0 && readTexts(storage, project, signRuns, stepsBy, callsBy, true),
    ended.length > 0 && readTexts(storage, project, ended, stepsBy, callsBy, false),
    lastOfFailed.length > 0 ? readObservations(storage, project, lastOfFailed) : new Map<string, string>(),
  ]);
  const score = new Map(scores.map((s) => [s.run_id, Number(s.latest)]));
  const out: RunRows[] = [];
  for (const summary of summaries) {
    const id = String(summary.run_id);
    const { ingested_at: wm, ...fields } = summary;
    const steps = stepsBy.get(id) ?? [];
    const calls = (callsBy.get(id) ?? []).map((c) => c.call);
    out.push({
      summary: { ...fields, ...runTotals(steps, calls, stepTotals.get(id)) },
      steps,
      tool_calls: calls,
      verifier_score: score.get(id) ?? null,
      verdict: verdictBy.get(id) ?? null,
      source_ingested_at: wm,
      final_observation: finals.get(id),
      step_errors: errorsBy.get(id),
    });
  }
  return out;
}

/** The counts and sums of a run's summary, from its rows as read (FINAL: each row once). */
function runTotals(steps: readonly StoredStep[], calls: readonly StoredToolCall[], c: StepColumns | undefined): SummaryRow {
  let input = 0;
  let output = 0;
  for (const st of steps) {
    input += st.input_tokens;
    output += st.output_tokens;
  }
  return {
    steps: steps.length,
    tool_calls: calls.length,
    tool_errors: calls.filter((x) => x.status === 'error').length,
    input_tokens: input,
    output_tokens: output,
    cache_read_tokens: c?.cache_read_tokens ?? 0,
    cache_write_tokens: c?.cache_write_tokens ?? 0,
    reasoning_tokens: c?.reasoning_tokens ?? 0,
    cost_estimated: c?.cost_estimated ?? false,
  };
}

function stepsOf(c: StepColumns): StoredStep[] {
  const out: StoredStep[] = new Array(c.step.length);
  for (let i = 0; i < out.length; i++) {
    out[i] = {
      step: Number(c.step[i]),
      ts: c.ts[i],
      action: '',
      observation: '',
      error_type: c.error_type[i],
      error_message: c.error_message[i],
      input_tokens: c.input_tokens[i],
      output_tokens: c.output_tokens[i],
      cost_usd: Number(c.cost_usd[i]),
      latency_ms: c.latency_null[i] ? null : Number(c.latency[i]),
      parts: c.sig_version[i] > 0 ? { action: c.sig_action[i], observation: c.sig_observation[i] } : undefined,
    };
  }
  return out;
}

/** A call as read, with its id (to put its texts in, when they are read). */
interface ReadCall {
  id: string;
  call: StoredToolCall;
}

function callsOf(c: CallColumns): ReadCall[] {
  const out: ReadCall[] = new Array(c.call_id.length);
  for (let i = 0; i < out.length; i++) {
    out[i] = {
      id: c.call_id[i],
      call: {
        step: c.step_null[i] ? null : Number(c.call_step[i]),
        ts: c.ts[i],
        tool: c.tool[i],
        arguments: '',
        status: c.status[i] === 'error' ? 'error' : 'ok',
        error_type: c.error_type[i],
        error_message: c.error_message[i],
        output: '',
        duration_ms: c.duration_null[i] ? null : Number(c.duration[i]),
        parts: c.sig_version[i] > 0 ? { call: c.sig_call[i], output: c.sig_output[i] } : undefined,
      },
    };
  }
  return out;
}

/** The observations of these (run, step) pairs, by run: one step of each run. */
async function readObservations(storage: Storage, project: string, pairs: Array<[string, number]>): Promise<Map<string, string>> {
  const rows = await storage.query<{ run_id: string; observation: string }>(
    `SELECT run_id, observation FROM steps FINAL PREWHERE ${WHERE} AND (run_id, step) IN (SELECT x.1, x.2 FROM (SELECT arrayJoin(arrayZip({ids:Array(String)}, {steps:Array(UInt32)})) AS x))`,
    { project, ids: pairs.map((p) => p[0]), steps: pairs.map((p) => p[1]) },
  );
  return new Map(rows.map((r) => [r.run_id, r.observation]));
}

/** Runs whose observations and outputs signing needs: rows stored without parts, or a step of several calls. */
function runsSignedFromTexts(stepsBy: ReadonlyMap<string, StoredStep[]>, callsBy: ReadonlyMap<string, ReadCall[]>): string[] {
  const out: string[] = [];
  for (const id of new Set([...stepsBy.keys(), ...callsBy.keys()])) {
    const calls = callsBy.get(id) ?? [];
    if ((stepsBy.get(id) ?? []).some((s) => s.parts === undefined) || calls.some((c) => c.call.parts === undefined)) {
      out.push(id);
      continue;
    }
    const seen = new Set<number>();
    for (const { call } of calls) {
      if (call.step === null) continue;
      if (seen.has(call.step)) {
        out.push(id);
        break;
      }
      seen.add(call.step);
    }
  }
  return out;
}

/** Reads the actions and arguments of these runs into their rows, and their observations and outputs with `outputs`. */
async function readTexts(
  storage: Storage,
  project: string,
  runIds: string[],
  stepsBy: ReadonlyMap<string, StoredStep[]>,
  callsBy: ReadonlyMap<string, ReadCall[]>,
  outputs: boolean,
): Promise<void> {
  const p = { project, ids: runIds };
  const [steps, calls] = await Promise.all([
    storage.query<{ run_id: string; step: number; action: string; observation?: string }>(
      `SELECT run_id, step, action${outputs ? ', observation' : ''} FROM steps FINAL PREWHERE ${WHERE}`,
      p,
    ),
    storage.query<{ run_id: string; call_id: string; arguments: string; output?: string }>(
      `SELECT run_id, call_id, arguments${outputs ? ', output' : ''} FROM tool_calls FINAL PREWHERE ${WHERE}`,
      p,
    ),
  ]);
  // Rows stored between the two reads are left out: their events bring the run back for analysis.
  const stepAt = new Map<string, StoredStep>();
  for (const id of runIds) for (const s of stepsBy.get(id) ?? []) stepAt.set(`${id}\u0000${s.step}`, s);
  for (const r of steps) {
    const s = stepAt.get(`${r.run_id}\u0000${Number(r.step)}`);
    if (!s) continue;
    s.action = r.action;
    if (r.observation !== undefined) s.observation = r.observation;
  }
  const callAt = new Map<string, StoredToolCall>();
  for (const id of runIds) for (const c of callsBy.get(id) ?? []) callAt.set(`${id}\u0000${c.id}`, c.call);
  for (const r of calls) {
    const c = callAt.get(`${r.run_id}\u0000${r.call_id}`);
    if (!c) continue;
    c.arguments = r.arguments;
    if (r.output !== undefined) c.output = r.output;
  }
}
