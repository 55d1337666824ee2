// Response shapes of the HTTP API, shared by server/ and web/. Timestamps are ISO 8601 strings
// (UTC); money is USD; durations are milliseconds.

/**
 * A run's status: `running` until its run_end arrives or it has been idle (no event) past the idle
 * timeout; then it has ended, with run_end's status, or `abandoned`; a verifier's verdict (a
 * `resolved` score) makes an ended run `success` or `failure` (docs/analyses.md). `submitted`: ended
 * by the agent without a verdict yet, neither a success nor a failure.
 */
export type RunState = 'success' | 'failure' | 'error' | 'timeout' | 'cancelled' | 'submitted' | 'abandoned' | 'running';

export interface RunSummary {
  project: string;
  run_id: string;
  /** run_start's time, else the first event's. */
  started_at: string;
  ended_at: string | null;
  last_event_at: string;
  /** run_end's status (else 'abandoned' once idle past the idle timeout, 'running' before), as the verifier's verdict makes it. */
  status: RunState;
  /** The verifier's verdict (its `resolved` score: 1 solved, 0 not); null when none arrived. */
  verdict: number | null;
  agent_name: string;
  agent_version: string;
  model: string;
  task_id: string;
  task_category: string;
  environment: string;
  tags: Record<string, string>;
  parent_run_id: string;
  max_steps: number | null;
  budget_usd: number | null;
  reward: number | null;
  tests_passed: number | null;
  tests_failed: number | null;
  /** The label given in run_end, else the run analyzer's failure mode; '' when none (a success, or not analysed yet). */
  failure_mode: string;
  /** Which rule gave the failure mode ('user_label' for a label in run_end); '' when none. */
  failure_rule?: string;
  /** Dead loops the analyzer found in the run. */
  loops?: number;
  /** A success flagged as suspicious (reward hacking); see the run's analysis for the evidence. */
  suspicious?: boolean;
  error_type: string;
  error_message: string;
  steps: number;
  tool_calls: number;
  tool_errors: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  /** True when some step's cost was priced from the model table instead of sent. */
  cost_estimated: boolean;
  /**
   * True when the run's times were not in its source but placed by the importer (files without
   * timestamps: `metadata.estimated` of its run_start or run_end lists `ts`).
   */
  times_estimated: boolean;
  duration_ms: number | null;
}

export interface RunsPage {
  runs: RunSummary[];
  next_cursor: string | null;
  /** How many runs match the filters (every page, not this one). */
  total: number;
}

export interface StepRow {
  step: number;
  ts: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  cost_estimated: boolean;
  latency_ms: number | null;
  action: string;
  observation: string;
  error_type: string;
  error_message: string;
  truncated: boolean;
  metadata: Record<string, unknown>;
}

export interface ToolCallRow {
  call_id: string;
  step: number | null;
  ts: string;
  tool: string;
  /** Canonical JSON text of the arguments. */
  arguments: string;
  status: 'ok' | 'error';
  error_type: string;
  error_message: string;
  duration_ms: number | null;
  output: string;
  truncated: boolean;
}

export interface ScoreRow {
  name: string;
  value: number;
  source: string;
  comment: string;
  ts: string;
}

export interface RunDetail {
  run: RunSummary;
  steps: StepRow[];
  tool_calls: ToolCallRow[];
  scores: ScoreRow[];
  /** Verdict of the run analyzer; null until the run has been analysed. */
  analysis: RunAnalysis | null;
  /** True when the run has more steps than one response carries (see `steps_limit`). */
  steps_truncated: boolean;
  /** The run's direct child runs (subagents: their `parent_run_id` is this run), oldest first, at most 200. */
  children: ChildRun[];
  /** How many child runs there are (all of them, not only those listed). */
  children_total: number;
  /** Cost and tokens of the run plus all its direct children. */
  /** The run plus all its descendants (subagents, theirs, ...), each counted once. */
  with_children: RunTotals;
}

/** A child run (subagent) as its parent's page lists it: the figures of its own run summary. */
export interface ChildRun {
  run_id: string;
  status: RunState;
  started_at: string;
  agent_name: string;
  steps: number;
  tool_calls: number;
  tool_errors: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  cost_estimated: boolean;
  /** The parent's tool call that started it, when the child's run_start names it (`metadata.spawned_by` or `metadata.parent`). */
  spawned_by: { call_id: string | null; step: number | null } | null;
}

/** Cost and tokens summed over a set of runs. */
export interface RunTotals {
  runs: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  /** True when some of the cost was priced from the model table. */
  cost_estimated: boolean;
}

import type { LoopInfo } from './loop-info.js';
import type { Scope } from './api-keys.js';
export type { LoopInfo };

export interface RunAnalysis {
  analyzed_at: string;
  /** True when the analysis covers every event stored for the run so far. */
  fresh: boolean;
  /** Null for a success, or a run still going (not idle long enough to be abandoned). */
  failure: { mode: string; rule: string; reason: string } | null;
  loops: LoopInfo[];
  suspicious: {
    suspicious: boolean;
    reasons: string[];
    evidence: Array<{ step: number | null; path: string; kind: string; source: string }>;
    evidence_steps: number[];
  };
  /** Reward-hacking evidence (any ended run): the kinds found, and each piece with its step and the text that matched. */
  hacking: {
    kinds: string[];
    evidence: Array<{ kind: string; step: number | null; source: 'action' | 'tool_call'; text: string }>;
  };
  process: {
    tool_calls: number;
    tool_errors: number;
    /** Tool errors followed within 3 steps by an ok call of the same tool. */
    self_corrected: number;
    self_correction_rate: number | null;
    /** Signed actions and those repeating an earlier one. */
    actions: number;
    rework_repeated: number;
    rework_rate: number | null;
  };
}

export interface Interval {
  low: number;
  high: number;
}

/** The overview: the metrics of the runs in range (RunMetrics) with the range and status counts. */
export interface Overview extends RunMetrics {
  /** The range asked for, else that of the runs found; null when there are none. */
  from: string | null;
  to: string | null;
  status_counts: Record<string, number>;
}

export interface TimeseriesPoint {
  bucket: string;
  runs: number;
  /** Runs that ended with a verdict (the completion rate's denominator). */
  ended: number;
  /** Runs that ended without a verdict (status submitted): not in the completion rate. */
  without_verdict: number;
  successes: number;
  completion_rate: number | null;
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  steps_p50: number | null;
  steps_p90: number | null;
  completion_rate_ci?: Interval | null;
  steps_total?: number;
  tool_calls?: number;
  tool_success_rate?: number | null;
  /** Tool errors followed within 3 steps by an ok call of the same tool / tool errors. */
  self_correction_rate?: number | null;
  /** Mean step latency. */
  latency_ms_avg?: number | null;
  /** Runs of the bucket whose times were estimated (RunSummary.times_estimated). */
  times_estimated_runs?: number;
}

export interface Timeseries {
  from: string;
  to: string;
  bucket_seconds: number;
  points: TimeseriesPoint[];
  /** With `group_by`: the same points per value of the dimension (the 10 with most runs). */
  group_by?: string;
  series?: Array<{ key: string; points: TimeseriesPoint[] }>;
}

/** The metrics of a set of runs (a cohort, a breakdown row). */
export interface RunMetrics {
  runs: number;
  /**
   * Runs that ended with a verdict: a success or a failure of some kind (run_end, a verifier's
   * verdict, or abandoned). The denominator of the completion rate and of failure shares.
   */
  ended: number;
  /** Runs that ended without a verdict (status submitted): neither a success nor a failure, in no rate. runs = ended + without_verdict + running. */
  without_verdict: number;
  successes: number;
  running: number;
  /** successes / ended (runs with a verdict); null when none. */
  completion_rate: number | null;
  completion_rate_ci: Interval | null;
  cost_usd: number;
  cost_per_run: number | null;
  cost_per_success: number | null;
  input_tokens: number;
  output_tokens: number;
  steps_total: number;
  steps_avg: number | null;
  steps_p50: number | null;
  steps_p90: number | null;
  tool_calls: number;
  tool_success_rate: number | null;
  self_correction_rate: number | null;
  latency_ms_avg: number | null;
  runs_with_loops: number;
  /** Runs with a failure mode. */
  failed: number;
  /** Successes flagged as suspicious. */
  suspicious: number;
  /** Runs whose times were estimated (RunSummary.times_estimated): placed in time by the importer, not by their source. */
  times_estimated_runs: number;
}

export interface Breakdown {
  by: string;
  rows: Array<{ key: string } & RunMetrics>;
  /** With by=tool: per tool. */
  tools?: Array<{
    tool: string;
    calls: number;
    errors: number;
    success_rate: number | null;
    /** Errors of this tool followed within 3 steps by an ok call of it (docs/analyses.md). */
    self_corrected: number;
    self_correction_rate: number | null;
    runs: number;
  }>;
}

export interface FailuresReport {
  /** Runs that ended with a verdict (run_end, a verifier's verdict, or abandoned); `failed` of them ended without success. */
  runs: number;
  failed: number;
  /** Runs that ended without a verdict (status submitted): not failures, not in `runs`. */
  without_verdict: number;
  modes: Array<{ mode: string; runs: number; share: number; rules: string[]; examples: string[] }>;
  over_time: { bucket_seconds: number; points: Array<{ bucket: string; counts: Record<string, number> }> };
  by: string;
  by_dimension: Array<{ key: string; runs: number; counts: Record<string, number> }>;
  /** The window against its baseline (base_from/base_to, else the window before of the same length); null when the window has no start. */
  comparison: FailuresComparison | null;
}

/** One side of a failure mode's comparison: its runs and its failure rate (runs with the mode / ended runs). */
export interface FailureModeSide {
  runs: number;
  /** runs / the window's ended runs; null when none ended. */
  rate: number | null;
  /** Wilson 95% interval of `rate`; null when none ended. */
  rate_ci: Interval | null;
}

/** A failure mode in the window (now) and in the baseline (before). */
export interface FailureModeChange {
  mode: string;
  before: FailureModeSide;
  now: FailureModeSide;
  /** now.rate − before.rate (0.01 = one percentage point); null when either window has no ended runs. */
  change: number | null;
  /** Pooled two-proportion z test of the two rates, two-sided. */
  z: number;
  p_value: number;
  /** p_value < alpha. */
  significant: boolean;
}

/** GET /api/v1/failures: the failure modes of the window against those of a baseline window. */
export interface FailuresComparison {
  /** The window (ISO; from null without a start, to now when not given). */
  window: { from: string | null; to: string };
  /** The baseline window (ISO) with its ended and failed runs. */
  baseline: { from: string; to: string; runs: number; failed: number };
  test: 'two_proportion_z';
  alpha: number;
  /** Every mode of either window (0 runs on the other side), largest change first. */
  modes: FailureModeChange[];
}

export interface LoopRow extends LoopInfo {
  project: string;
  run_id: string;
  started_at: string;
  model: string;
  agent_name: string;
  status: string;
}

export interface LoopsReport {
  totals: {
    runs: number;
    runs_with_loops: number;
    loops: number;
    steps: number;
    tokens: number;
    cost_usd: number;
    by_kind: Record<string, { loops: number; tokens: number; cost_usd: number }>;
  };
  loops: LoopRow[];
}

export interface CostSpikesReport {
  runs: Array<{
    project: string;
    run_id: string;
    cohort: { project: string; task_category: string; model: string };
    cost_usd: number;
    z: number;
    cohort_median: number;
    cohort_runs: number;
    factor: number | null;
  }>;
  steps: Array<{ project: string; run_id: string; step: number; input_tokens: number; cohort_p99: number; factor: number }>;
  hours: Array<{ hour: string; cost_usd: number; baseline_usd: number; factor: number }>;
}

export interface CompareReport {
  a: RunMetrics;
  b: RunMetrics;
  /** The time window of each cohort's runs (by start time, from inclusive, to exclusive, ISO); null: unbounded on that side. */
  windows: { a: CompareWindow; b: CompareWindow };
  /** b − a for each numeric metric (null when either is null). */
  delta: Record<string, number | null>;
  /** Pooled two-proportion z test of the completion rates (b against a). */
  completion_test: { difference: number | null; z: number; p_value: number };
  failure_modes: Array<{ mode: string; a_runs: number; b_runs: number; a_share: number | null; b_share: number | null; shift: number | null }>;
}

export interface CompareWindow {
  from: string | null;
  to: string | null;
}

/** Distinct values of the filter dimensions, for the dashboard's pickers. */
export interface FilterOptions {
  projects: string[];
  models: string[];
  agents: string[];
  agent_versions: string[];
  task_categories: string[];
  environments: string[];
  statuses: string[];
  failure_modes: string[];
}

/** POST /api/v1/sql: typed columns, rows as arrays in column order, and what the query cost. */
export interface SqlColumn {
  name: string;
  /** ClickHouse type, e.g. `UInt64`, `Nullable(Float64)`, `LowCardinality(String)`. */
  type: string;
}

export interface SqlStats {
  elapsed_ms: number;
  rows: number;
  rows_read: number;
  bytes_read: number;
  /** True when the result had more rows than the console returns. */
  truncated: boolean;
}

export interface SqlResult {
  columns: SqlColumn[];
  rows: unknown[][];
  stats: SqlStats;
}

/** GET /api/v1/sql/schema */
export interface SqlSchemaTable {
  name: string;
  engine: string;
  description: string;
  columns: { name: string; type: string; description: string }[];
}

export interface SqlSchema {
  tables: SqlSchemaTable[];
}

/** GET/POST /api/v1/sql/saved: a console query saved for a project. */
export interface SavedQuery {
  id: string;
  project: string;
  name: string;
  sql: string;
  created_at: string;
  updated_at: string;
}

export interface SavedQueryList {
  project: string;
  saved_queries: SavedQuery[];
}

export interface IngestResponse {
  accepted: number;
  rejected: { index: number; error: string }[];
}

export interface ApiErrorBody {
  error: { code: string; message: string };
}

/** GET /api/v1/projects: projects holding runs, for the dashboard's project picker. */
export interface ProjectList {
  projects: Array<{ project: string; runs: number; last_event_at: string | null }>;
}

/** GET /api/v1/loops/groups: dead loops per value of a dimension, or per tool ('' = no tool called). */
export interface LoopGroups {
  by: string;
  rows: Array<{ key: string; loops: number; runs: number; steps: number; tokens: number; cost_usd: number }>;
}

/** An API key as listed (GET /api/v1/keys): never the key itself. */
export interface ApiKeyInfo {
  id: string;
  /** The project the key is bound to; null for admin keys (every project). */
  project: string | null;
  scope: Scope;
  name: string;
  /** The first characters of the key, to recognise it. */
  hint: string;
  created_at: string;
  revoked_at: string | null;
}

/** POST /api/v1/keys answer: the key is shown this once. */
export interface CreatedApiKey extends ApiKeyInfo {
  key: string;
}

/** GET /api/v1/auth/whoami: how the server sees the caller. */
export interface WhoAmI {
  /** open: the server runs without keys (loopback only); token: the admin token; key: an API key. */
  mode: 'open' | 'token' | 'key';
  scope: 'ingest' | 'read' | 'admin';
  project: string | null;
  key_id: string | null;
  name: string | null;
}

// ── RL rollouts (issue 9): /api/v1/rl/steps, /api/v1/rl/tasks, /api/v1/environments ──

/** One training step (or policy version) of GET /api/v1/rl/steps. */
export interface RlStepPoint {
  /** The training step, or the policy version when grouped by it. */
  key: number | string;
  rollouts: number;
  /** Rollouts that ended (have a status). */
  ended: number;
  completion_rate: number | null;
  reward_mean: number | null;
  reward_std: number | null;
  reward_p10: number | null;
  reward_p50: number | null;
  reward_p90: number | null;
  steps_per_rollout: number;
  tokens_per_rollout: number;
  cost_per_rollout: number;
  /** Groups with at least two scored rollouts. */
  groups: number;
  /** Of those, groups whose rewards are all equal: zero advantage, no learning signal. */
  zero_advantage_groups: number;
  zero_advantage_share: number | null;
  /** Failure mode → rollouts. */
  failure_modes: Record<string, number>;
}

/** How far behind the trainer the latest rollouts' policies are (needs POST /api/v1/rl/trainer). */
export interface RlStaleness {
  trainer_step: number;
  policy_version: string;
  reported_at: string;
  /** The latest training step among the rollouts, whose rollouts are looked at. */
  training_step: number | null;
  rollouts: number;
  /** trainer_step − the rollout policy's step (trailing integer of policy_version, else training_step). */
  lag_p50: number | null;
  lag_max: number | null;
}

export interface RlSteps {
  by: 'training_step' | 'policy_version';
  /** Rollouts carrying rl.training_step among the filtered runs. */
  rollouts: number;
  points: RlStepPoint[];
  staleness: RlStaleness | null;
}

export type RlTaskVerdict = 'never_solved' | 'always_solved' | 'learning' | 'too_few_attempts';

export interface RlTaskRow {
  task_id: string;
  task_category: string;
  environment: string;
  attempts: number;
  solved: number;
  solve_rate: number;
  reward_mean: number | null;
  /** k → unbiased pass@k (null when attempts < k). */
  pass_at: Record<string, number | null>;
  /** k → pass^k, all k of k (null when attempts < k). */
  pass_hat: Record<string, number | null>;
  verdict: RlTaskVerdict;
  /** Up to five runs of the task, as examples. */
  example_runs: string[];
}

export interface RlFlakyCase {
  task_id: string;
  /** Key of the identical action sequence. */
  action_sequence: string;
  runs: number;
  solved: number;
  min_reward: number | null;
  max_reward: number | null;
  example_runs: string[];
}

export interface RlTasks {
  ks: number[];
  min_attempts: number;
  /** Tasks with at least one ended run. */
  tasks: number;
  attempts: number;
  /** k → mean over tasks of pass@k / pass^k (tasks with attempts ≥ k). */
  mean_pass_at: Record<string, number | null>;
  mean_pass_hat: Record<string, number | null>;
  never_solved: number;
  always_solved: number;
  /** The tasks listed (most attempted first, at most `limit`). */
  rows: RlTaskRow[];
  flaky: RlFlakyCase[];
}

export interface EnvironmentTrendPoint {
  /** Training step (start of the bucket) or, for runs without RL fields, the bucket time (ISO). */
  x: number | string;
  runs: number;
  error_rate: number | null;
  tool_ms_p50: number | null;
  tool_ms_p95: number | null;
  env_share: number | null;
}

export interface EnvironmentRow {
  environment: string;
  runs: number;
  ended: number;
  /** Runs whose failure mode is environment_error. */
  environment_errors: number;
  error_rate: number | null;
  tool_calls: number;
  tool_ms_p50: number | null;
  tool_ms_p95: number | null;
  /** Sandbox time / (sandbox time + model time) over the runs' steps. */
  env_share: number | null;
  trend: EnvironmentTrendPoint[];
}

export interface Environments {
  /** What the trend's x is: training steps (bucketed by `bucket`) or time (bucket seconds). */
  trend_by: 'training_step' | 'time';
  bucket: number;
  environments: EnvironmentRow[];
}

/** POST /api/v1/rl/trainer body: the trainer's current step. */
export interface TrainerReport {
  project?: string;
  training_step: number;
  policy_version?: string;
}

// ---- Alerting (/api/v1/alerts/*) ----
export type { PublicRule as AlertRuleView, RuleKind as AlertRuleKind, Severity as AlertSeverity } from './alert-rules.js';
export type { AlertPayload } from './alert-payload.js';

/** GET /api/v1/alerts/rules */
export interface AlertRuleList {
  rules: import('./alert-rules.js').PublicRule[];
}

/** One firing, resolution or test of a rule (GET /api/v1/alerts/firings). */
export interface AlertFiring {
  firing_id: string;
  rule_id: string;
  rule_name: string;
  kind: string;
  severity: string;
  status: 'firing' | 'resolved' | 'test';
  key: string;
  project: string;
  run_id: string;
  summary: string;
  fired_at: string;
  /** The JSON payload that was sent. */
  payload: unknown;
}

/** One attempt at delivering a webhook. */
export interface DeliveryAttempt {
  attempt: number;
  ts: string;
  /** delivered, retry (failed, another attempt follows) or failed (the last attempt failed). */
  outcome: 'delivered' | 'retry' | 'failed';
  status_code: number | null;
  error: string;
  duration_ms: number;
}

/** One webhook delivery of a firing (GET /api/v1/alerts/deliveries), with its attempts. */
export interface AlertDelivery {
  delivery_id: string;
  firing_id: string;
  rule_id: string;
  webhook_id: string;
  /** Without credentials and query values. */
  url: string;
  format: 'json' | 'slack';
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_error: string;
  created_at: string;
  updated_at: string;
  attempt_log: DeliveryAttempt[];
}

/**
 * GET /api/v1/runs/:run_id/steps/index: a compact per-step outline of a whole run for the
 * trajectory viewer's chart and list (parallel arrays in step order, no texts), so a
 * 5,000-step run's shape arrives in one small response and step texts come in windows.
 */
export interface StepIndex {
  project: string;
  run_id: string;
  step: number[];
  input_tokens: number[];
  output_tokens: number[];
  cost_usd: number[];
  latency_ms: Array<number | null>;
  tool_calls: number[];
  /** The tool names of the run's steps, each once; `tools[0]` is '' (no tool call). */
  tools: string[];
  /** Per step, its first tool call's tool as an index into `tools` (0: the step has no tool call). */
  tool: number[];
  /** 1 when the step or one of its tool calls failed. */
  error: Array<0 | 1>;
}

/** GET /api/v1/runs/:run_id/steps?offset=&limit=: a window of steps (by position) and their tool calls. */
export interface StepWindow {
  project: string;
  run_id: string;
  offset: number;
  steps: StepRow[];
  tool_calls: ToolCallRow[];
}

/** The counts and sums of some runs (a group or a whole cohort) that every metric of GET /api/v1/changes is built from. */
export interface RunCounts {
  runs: number;
  /** Runs that ended with a verdict (the completion rate's denominator). */
  ended: number;
  /** Runs that ended without a verdict (status submitted). */
  without_verdict: number;
  successes: number;
  cost_usd: number;
  steps: number;
  runs_with_loops: number;
}

/** One side of a group in GET /api/v1/changes: its counts, share, own rate and intervals. */
export interface ChangeGroupSide extends RunCounts {
  /** The group's share of the metric's denominator (ended runs for the completion rate). */
  weight: number;
  /** The group's own value of the metric; null when its denominator is 0. */
  value: number | null;
  /** Wilson 95% interval of `value` (completion and loop rates only). */
  value_ci: { low: number; high: number } | null;
  completion_rate: number | null;
  completion_rate_ci: { low: number; high: number } | null;
}

/** A group of a dimension and its part of the change (mix + rate = contribution). */
export interface ChangeGroup {
  key: string;
  /** The groups beyond the listed ones, summed (key ''). */
  other: boolean;
  a: ChangeGroupSide;
  b: ChangeGroupSide;
  contribution: number;
  mix: number;
  rate: number;
  /** contribution / the total change (null when the change is 0 or unknown). */
  share_of_change: number | null;
  /** Dashboard path of the group's runs in cohort A and in cohort B (null for the "other" group). */
  runs_link_a: string | null;
  runs_link_b: string | null;
}

export interface ChangeDimensionReport {
  /** model, agent, agent_version, task_category, environment, failure_mode or tag:<key>. */
  dimension: string;
  /** failure_mode is an outcome of the runs, reported but not ranked. */
  ranked: boolean;
  /** The group carrying the most of the change beyond its share of runs. */
  top: string | null;
  /** The top group's contribution / the change. */
  explained: number | null;
  /** explained − the top group's mean weight; dimensions are ranked by it. */
  score: number | null;
  groups: ChangeGroup[];
}

export interface ChangeCohort extends RunCounts {
  /** From/to (ISO) when the cohort is a time window. */
  from: string | null;
  to: string | null;
  value: number | null;
}

/** GET /api/v1/changes: what changed a metric between cohort A (before) and B (after), and why. */
export interface ChangeReport {
  metric: 'completion_rate' | 'cost_per_success' | 'steps_per_run' | 'loop_rate';
  a: ChangeCohort;
  b: ChangeCohort;
  /** b.value − a.value; null when either is undefined. */
  change: number | null;
  test: { name: 'two_proportion_z' | 'delta_method_z'; z: number; p_value: number; alpha: number; beyond_noise: boolean };
  /** Ranked dimensions first (by score), then the unranked ones. */
  dimensions: ChangeDimensionReport[];
  /** Tag keys beyond the most common ones were left out. */
  tag_keys_bounded: boolean;
}

/** One matching step or tool call of a run in GET /api/v1/search. */
export interface SearchMatch {
  /** The step (null: a tool call recorded without one). */
  step: number | null;
  source: 'step' | 'tool_call';
  /** The first field of the step or call that matched: action, observation, error, tool_arguments or tool_output. */
  field: string;
  /** The tool of a tool call ('' for a step). */
  tool: string;
  /** The call id of a tool call ('' for a step). */
  call_id: string;
  /** At most about 200 characters of the field around its first match ('…' where cut). */
  snippet: string;
  /** Where the first match is in the snippet, in characters (Unicode code points); null when it cannot be told. */
  highlight: { start: number; length: number } | null;
  /** Dashboard path of the run at that step: /runs/<run_id>?step=<step>. */
  link: string;
}

/** One run with matches in GET /api/v1/search. */
export interface SearchRun {
  run_id: string;
  project: string;
  task_id: string;
  status: string;
  model: string;
  started_at: string | null;
  /** Its matching steps and tool calls. */
  hits: number;
  /** The first 5 matches by step. */
  matches: SearchMatch[];
}

/** GET /api/v1/runs/:run_id/find: the matching steps and tool calls of one run, in step order. */
export interface RunFindAnswer {
  run_id: string;
  project: string;
  /** Matching steps and tool calls in the run (more than `matches` holds when cut at `limit`). */
  total: number;
  /** The words searched for (words and phrase modes), lower-cased as the engine cut them; [] otherwise. */
  words: string[];
  matches: SearchMatch[];
}

/** GET /api/v1/search: runs whose steps or tool calls hold the text asked for. */
export interface SearchAnswer {
  /** Runs with at least one match, over every page. */
  total_runs: number;
  /** Matching steps and tool calls, over every page. */
  total_hits: number;
  /** The words searched for (words and phrase modes), lower-cased as the engine cut them; [] otherwise. */
  words: string[];
  runs: SearchRun[];
  /** The offset of the next page; null on the last. */
  next_offset: number | null;
}

/** Where an error was recorded (GET /api/v1/errors): a step's or a tool call's error, or a failed run's final error. */
export type ErrorSource = 'step' | 'tool_call' | 'run_end' | 'final_observation';

/** An error of one signature, as an example (GET /api/v1/errors). */
export interface ErrorExample {
  project: string;
  run_id: string;
  /** The step it happened in (null: a tool call recorded without one); a run's final error: its last step. */
  step: number | null;
  /** Where the error was recorded: a step, a tool call, run_end's error, or the final observation of a failed run. */
  source: ErrorSource;
  /** The tool of a tool call ('' otherwise). */
  tool: string;
  /** The error message as recorded (at most 300 characters). */
  message: string;
  at: string | null;
  /** Dashboard path of the run at that step. */
  link: string;
}

/** One error signature: a template of error messages and what it touched (GET /api/v1/errors). */
export interface ErrorSignature {
  /** lower(hex(cityHash64(template))): the id the run filter `error_signature` takes. */
  signature: string;
  /** The error message with its variable parts masked (<n>, <path>, <time>, <id>, '<*>'). */
  template: string;
  /** Steps of runs in view with an error of this template in the window (a step and its tool call count once). */
  occurrences: number;
  runs: number;
  /** Of those runs, the ones that failed (the shared definition: ended, not successful, not waiting for a verdict). */
  failed_runs: number;
  /** The first error of this template in any run of the projects asked for, whatever the window and filters. */
  first_seen: string | null;
  last_seen: string | null;
  /** First seen within the window (false without a window start). */
  new_in_window: boolean;
  /** Up to 3 tools (most frequent first) and models. */
  tools: string[];
  models: string[];
  /** Occurrences in 12 equal bars from `from` to `to` of the report. */
  trend: number[];
  /** Up to 3 errors, newest first. */
  examples: ErrorExample[];
}

/** GET /api/v1/errors: the error signatures of the runs in view, most runs first. */
export interface ErrorsReport {
  /** Totals over every signature (not only those listed). */
  occurrences: number;
  signatures: number;
  runs: number;
  /** The span of the trends: the window, or from the first error in view to now. */
  from: string | null;
  to: string;
  items: ErrorSignature[];
}

/** Reward-hacking evidence of one task or environment (GET /api/v1/hacking). */
export interface HackingGroup {
  /** The task id or environment. */
  key: string;
  /** Ended runs. */
  runs: number;
  /** Of them, runs with any evidence, and per kind. */
  with_evidence: number;
  by_kind: Record<string, number>;
  /** Success rate of the ended runs with evidence and of those without (null: none of them). */
  success_with: number | null;
  success_without: number | null;
}

/** GET /api/v1/hacking: reward-hacking evidence per task or environment, most runs with evidence first. */
export interface HackingReport {
  by: 'task' | 'environment';
  /** Every ended run in view, and those with evidence, per kind. */
  runs: number;
  with_evidence: number;
  by_kind: Record<string, number>;
  groups: HackingGroup[];
}
