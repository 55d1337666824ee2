// The verdict of one run from the rows read back from ClickHouse: loops, failure mode with its
// rule and reason, suspicious-success flags with evidence, process metrics and the run's
// exact totals, as one `run_analysis` row. Pure: applies analytics/ and nothing else.
import { classifyFailure, collectRunFacts, type FailureConfig } from './failure-modes/index.js';
import { detectLoops, type Loop, type LoopThresholds } from './loops/index.js';
import { reworkRate, selfCorrectionRate } from './process-metrics.js';
import { signSteps, type CallParts, type StepParts } from './signed-step.js';
import { DEFAULT_VERIFIER_PATHS, detectSuspiciousSuccess } from './suspicious-success.js';
import { detectHackingEvidence, hackingKinds, type HackingConfig } from './hacking-evidence.js';
import { compilePathPattern } from './path-patterns.js';
import { actionSequenceKey } from './rl/action-sequence.js';
import { RUN_STATUSES, type RunStatus } from '../schemas/events.js';
import { hasFailed, runOutcome } from './run-outcome.js';
import { finalError } from './final-error.js';

/** A run's summary row as runSummarySql gives it (ClickHouse JSON values). */
export type SummaryRow = Record<string, unknown>;

/**
 * A step row as read back. Its texts may be left '' when its signature parts are read (the
 * reader reads them where the analysis needs them: see read-runs.ts).
 */
export interface StoredStep {
  step: number;
  ts: number;
  action: string;
  observation: string;
  error_type: string;
  error_message: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  latency_ms: number | null;
  /** Signature parts stored at ingest (absent in rows stored before them). */
  parts?: StepParts;
}

export interface StoredToolCall {
  step: number | null;
  ts: number;
  tool: string;
  arguments: string;
  status: 'ok' | 'error';
  error_type: string;
  error_message: string;
  output: string;
  /** The environment's time for the call (absent in rows read before it was carried). */
  duration_ms?: number | null;
  /** Signature parts stored at ingest (absent in rows stored before them). */
  parts?: CallParts;
}

export interface RunRows {
  summary: SummaryRow;
  steps: StoredStep[];
  tool_calls: StoredToolCall[];
  verifier_score: number | null;
  /** The verifier's verdict (its latest `resolved` score); null or absent when none. */
  verdict?: number | null;
  /** max(runs.ingested_at) read before the rows: what the analysis covers. */
  source_ingested_at: string;
  /** The last step's observation, read for failed runs only (their final error: final-error.ts). */
  final_observation?: string;
  /** The run's error occurrences of steps and tool calls as stored, kept as its rollup (docs/errors.md). */
  step_errors?: StepErrorColumns;
}

/**
 * A run's error occurrences, parallel arrays with one element per (step or tool call without
 * one, template) as storage/queries/error-rows-sql.ts reads them: the tool of its first tool-call
 * row ('' when none) and its first row's time as the engine wrote it.
 */
export interface StepErrorColumns {
  step_error_occurrences: string[];
  step_error_templates: string[];
  step_error_tools: string[];
  step_error_ts: string[];
}

const NO_STEP_ERRORS: StepErrorColumns = { step_error_occurrences: [], step_error_templates: [], step_error_tools: [], step_error_ts: [] };

export interface AnalyzeOptions {
  now: number;
  loops?: Partial<LoopThresholds>;
  failure?: Partial<FailureConfig>;
  /** Reward-hacking patterns instead of the defaults they name. */
  hacking?: Partial<HackingConfig>;
}

/** The verifier's paths, compiled once rather than for every run analysed. */
const SUSPICIOUS = { verifierPaths: DEFAULT_VERIFIER_PATHS.map(compilePathPattern) };

const STATUSES = new Set<RunStatus>(RUN_STATUSES);

const n = (v: unknown) => (v === null || v === undefined || v === '' ? 0 : Number(v));
const nOrNull = (v: unknown) => (v === null || v === undefined || v === '' ? null : Number(v));
const s = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const ms = (v: unknown): number | undefined => {
  if (v === null || v === undefined || v === '') return undefined;
  const t = Date.parse(`${String(v).replace(' ', 'T')}Z`);
  return Number.isFinite(t) ? t : undefined;
};

export function analyzeRun(rows: RunRows, o: AnalyzeOptions): Record<string, unknown> {
  const r = rows.summary;
  const status = STATUSES.has(r.status as RunStatus) ? (r.status as RunStatus) : null;
  const signed = signSteps(rows.steps, rows.tool_calls);
  const loops: Loop[] = detectLoops(signed, o.loops);
  // Summed in step order (as the events came), so a cost right at the budget compares the same
  // way as a direct computation over the run's events would.
  let cost = 0;
  for (const st of [...rows.steps].sort((a, b) => a.step - b.step)) cost += st.cost_usd;
  const endTs = ms(r.ended_at);
  const facts = collectRunFacts({
    start: { max_steps: nOrNull(r.max_steps), budget_usd: nOrNull(r.budget_usd), ts: ms(r.started_at) ?? 0 },
    steps: rows.steps,
    tool_calls: rows.tool_calls,
    end: status
      ? {
          status,
          failure_mode: s(r.label_failure_mode),
          reward: nOrNull(r.reward),
          tests_passed: nOrNull(r.tests_passed),
          tests_failed: nOrNull(r.tests_failed),
          error_type: s(r.error_type),
          error_message: s(r.error_message),
          ts: endTs ?? 0,
        }
      : null,
    verifier_score: rows.verifier_score,
    verdict: rows.verdict ?? null,
    cost_usd: cost,
    loops,
    now: o.now,
  });
  // The run's latest event as stored (events without a step, like scores, count too).
  facts.last_event_ts = Math.max(facts.last_event_ts, ms(r.last_event_at) ?? -Infinity);
  const verdict = classifyFailure(facts, o.failure);
  const suspicious = detectSuspiciousSuccess({
    // A success by its run_end or by the verifier's verdict.
    status: status === null ? null : runOutcome(status, rows.verdict ?? null),
    steps: rows.steps,
    tool_calls: rows.tool_calls,
    tests_passed: nOrNull(r.tests_passed),
    tests_failed: nOrNull(r.tests_failed),
  }, SUSPICIOUS);
  // Reward-hacking evidence of an ended run, successful or not (its actions and arguments are read back for it).
  const hacking = status !== null ? detectHackingEvidence({ steps: rows.steps, tool_calls: rows.tool_calls }, o.hacking) : [];
  const final = finalError({
    failed: status !== null && hasFailed(runOutcome(status, rows.verdict ?? null)),
    endError: s(r.error_message),
    steps: rows.steps,
    tool_calls: rows.tool_calls,
    finalObservation: rows.final_observation,
  });
  const calls = [...rows.tool_calls].sort(
    (a, b) => (a.step ?? Number.MAX_SAFE_INTEGER) - (b.step ?? Number.MAX_SAFE_INTEGER) || a.ts - b.ts,
  );
  const selfCorrection = selfCorrectionRate(calls);
  const rework = reworkRate(signed.filter((x) => !x.action.startsWith('unsigned:')).map((x) => x.action));
  let latencySum = 0;
  let latencyCount = 0;
  let maxInput = 0;
  for (const st of rows.steps) {
    if (st.latency_ms !== null) {
      latencySum += st.latency_ms;
      latencyCount++;
    }
    if (st.input_tokens > maxInput) maxInput = st.input_tokens;
  }
  const tools = new Map<string, { calls: number; errors: number }>();
  const toolMs: number[] = [];
  let toolMsSum = 0;
  for (const c of rows.tool_calls) {
    if (c.duration_ms != null) {
      toolMs.push(c.duration_ms);
      toolMsSum += c.duration_ms;
    }
    const t = tools.get(c.tool) ?? { calls: 0, errors: 0 };
    t.calls++;
    if (c.status === 'error') t.errors++;
    tools.set(c.tool, t);
  }
  return {
    project: s(r.project),
    run_id: s(r.run_id),
    version: o.now * 1000 + (process.hrtime()[1] % 1000),
    analyzed_at: o.now,
    source_ingested_at: rows.source_ingested_at,
    started_at: r.started_at,
    ended_at: r.ended_at ?? null,
    last_event_at: r.last_event_at,
    status: s(r.status),
    agent_name: s(r.agent_name),
    agent_version: s(r.agent_version),
    model: s(r.model),
    task_id: s(r.task_id),
    task_category: s(r.task_category),
    environment: s(r.environment),
    tags_json: s(r.tags_json) || '{}',
    parent_run_id: s(r.parent_run_id),
    max_steps: nOrNull(r.max_steps),
    budget_usd: nOrNull(r.budget_usd),
    reward: nOrNull(r.reward),
    tests_passed: nOrNull(r.tests_passed),
    tests_failed: nOrNull(r.tests_failed),
    label_failure_mode: s(r.label_failure_mode),
    verdict: rows.verdict ?? null,
    error_type: s(r.error_type),
    error_message: s(r.error_message),
    steps: n(r.steps),
    tool_calls: n(r.tool_calls),
    tool_errors: n(r.tool_errors),
    input_tokens: n(r.input_tokens),
    output_tokens: n(r.output_tokens),
    cache_read_tokens: n(r.cache_read_tokens),
    cache_write_tokens: n(r.cache_write_tokens),
    reasoning_tokens: n(r.reasoning_tokens),
    cost_usd: cost,
    cost_estimated: Boolean(r.cost_estimated),
    times_estimated: Boolean(r.times_estimated),
    latency_ms_sum: latencySum,
    latency_count: latencyCount,
    max_input_tokens: maxInput,
    failure_mode: verdict?.mode ?? '',
    failure_rule: verdict?.rule ?? '',
    failure_reason: verdict?.reason ?? '',
    loop_count: loops.length,
    loop_steps: loops.reduce((a, l) => a + l.last_step - l.first_step + 1, 0),
    loop_tokens: loops.reduce((a, l) => a + l.tokens, 0),
    loop_cost_usd: loops.reduce((a, l) => a + l.cost_usd, 0),
    loops: JSON.stringify(loops),
    suspicious: suspicious.suspicious,
    suspicious_reasons: suspicious.reasons,
    suspicious_evidence: JSON.stringify({ evidence: suspicious.evidence, evidence_steps: suspicious.evidence_steps }),
    hacking_kinds: hackingKinds(hacking),
    hacking_evidence: JSON.stringify(hacking),
    final_error: final?.text ?? '',
    final_error_source: final?.source ?? '',
    final_error_step: final?.step ?? null,
    ...(rows.step_errors ?? NO_STEP_ERRORS),
    self_corrected: selfCorrection.numerator,
    rework_repeated: rework.numerator,
    actions: rework.denominator,
    // UInt32 column (0012): saturate rather than wrap an absurd count.
    step_input_tokens: [...rows.steps].sort((a, b) => a.step - b.step).map((x) => Math.min(x.input_tokens, 0xffffffff)),
    tool_names: [...tools.keys()],
    tool_call_counts: [...tools.values()].map((t) => t.calls),
    tool_error_counts: [...tools.values()].map((t) => t.errors),
    tool_corrected_counts: [...tools.keys()].map((t) => selfCorrection.by_tool[t]?.numerator ?? 0),
    rl_training_step: nOrNull(r.rl_training_step),
    rl_policy_version: s(r.rl_policy_version),
    rl_group_id: s(r.rl_group_id),
    rl_sample_index: nOrNull(r.rl_sample_index),
    action_sequence: actionSequenceKey(signed.map((x) => x.action)),
    tool_ms_sum: toolMsSum,
    tool_ms: toolMs,
  };
}
