// Turns the SDK's camelCase inputs into wire events (snake_case, contract version 1). Pure.
import type {
  EndRunInput,
  RunEndEvent,
  RunStartEvent,
  ScoreEvent,
  ScoreInput,
  StartRunInput,
  StepEvent,
  StepInput,
  TimeInput,
  ToolCallEvent,
  ToolCallInput,
} from './events.js';

export interface EventContext {
  runId: string;
  project?: string;
  /** Used when the input gives no `ts`. */
  now: number;
}

export function toTimestamp(ts: TimeInput | undefined, now: number): string | number {
  if (ts === undefined) return new Date(now).toISOString();
  if (ts instanceof Date) return ts.toISOString();
  return ts;
}

/** Copies `o` without its undefined fields (the wire format leaves absent fields out). */
export function compact<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}

function common(ctx: EventContext, input: { ts?: TimeInput; metadata?: Record<string, unknown> }) {
  return { v: 1 as const, project: ctx.project, run_id: ctx.runId, ts: toTimestamp(input.ts, ctx.now), metadata: input.metadata };
}

export function runStartEvent(ctx: EventContext, i: StartRunInput): RunStartEvent {
  return compact<RunStartEvent>({
    ...common(ctx, i),
    type: 'run_start',
    agent: i.agent,
    model: i.model,
    task: i.task,
    environment: i.environment,
    tags: i.tags,
    parent_run_id: i.parentRunId,
    max_steps: i.maxSteps,
    budget_usd: i.budgetUsd,
    rl: i.rl
      ? compact({
          training_step: i.rl.trainingStep,
          policy_version: i.rl.policyVersion,
          group_id: i.rl.groupId,
          sample_index: i.rl.sampleIndex,
        })
      : undefined,
  });
}

export function stepEvent(ctx: EventContext, step: number, i: StepInput): StepEvent {
  return compact<StepEvent>({
    ...common(ctx, i),
    type: 'step',
    step,
    model: i.model,
    input_tokens: i.inputTokens,
    output_tokens: i.outputTokens,
    cache_read_tokens: i.cacheReadTokens,
    cache_write_tokens: i.cacheWriteTokens,
    reasoning_tokens: i.reasoningTokens,
    cost_usd: i.costUsd,
    latency_ms: i.latencyMs,
    action: i.action,
    observation: i.observation,
    error: i.error,
  });
}

export function toolCallEvent(
  ctx: EventContext,
  call: { step: number | undefined; callId: string; tool: string },
  i: ToolCallInput,
): ToolCallEvent {
  return compact<ToolCallEvent>({
    ...common(ctx, i),
    type: 'tool_call',
    step: call.step,
    call_id: call.callId,
    tool: call.tool,
    arguments: i.arguments,
    status: i.status ?? (i.error ? 'error' : 'ok'),
    error: i.error,
    duration_ms: i.durationMs,
    output: i.output,
  });
}

export function runEndEvent(ctx: EventContext, i: EndRunInput): RunEndEvent {
  return compact<RunEndEvent>({
    ...common(ctx, i),
    type: 'run_end',
    status: i.status,
    reward: i.reward,
    tests: i.tests,
    failure_mode: i.failureMode,
    error: i.error,
  });
}

export function scoreEvent(ctx: EventContext, i: ScoreInput): ScoreEvent {
  return compact<ScoreEvent>({
    ...common(ctx, i),
    type: 'score',
    name: i.name,
    value: i.value,
    source: i.source,
    comment: i.comment,
  });
}
