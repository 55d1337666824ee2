// The event contract, version 1. One JSON object per event; see DESIGN.md "Event contract".
// Every field that is not required may be absent. Unknown fields are accepted here and moved
// into `metadata` by normalize-event.ts, never dropped.
import { z } from 'zod';

export const EVENT_TYPES = ['run_start', 'step', 'tool_call', 'run_end', 'score'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const RUN_STATUSES = ['success', 'failure', 'error', 'timeout', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** RFC 3339 date-time (with a zone) or epoch milliseconds. */
export const RFC3339 =
  /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})$/;
export const timestampSchema = z.union([
  z.string().regex(RFC3339, 'must be an RFC 3339 date-time with a zone, e.g. 2026-11-30T09:00:00Z'),
  z.number().finite().nonnegative('must be epoch milliseconds'),
]);

const count = z.number().int().nonnegative();
const text = z.string();
const errorInfo = z.looseObject({ type: z.string().optional(), message: z.string().optional() });
const metadata = z.record(z.string(), z.unknown());

const common = {
  v: z.literal(1).optional(),
  event_id: z.string().min(1).max(200).optional(),
  project: z.string().min(1).max(200).optional(),
  run_id: z.string().min(1, 'run_id must not be empty').max(500),
  ts: timestampSchema.optional(),
  metadata: metadata.optional(),
};

export const runStartSchema = z.looseObject({
  ...common,
  type: z.literal('run_start'),
  agent: z.looseObject({ name: z.string().optional(), version: z.string().optional() }).optional(),
  model: z.string().optional(),
  task: z.looseObject({ id: z.string().optional(), category: z.string().optional() }).optional(),
  environment: z.string().optional(),
  tags: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  parent_run_id: z.string().optional(),
  max_steps: count.optional(),
  budget_usd: z.number().finite().nonnegative().optional(),
  rl: z
    .looseObject({
      training_step: z.number().int().optional(),
      policy_version: z.string().optional(),
      group_id: z.string().optional(),
      sample_index: z.number().int().optional(),
    })
    .optional(),
});

export const stepSchema = z.looseObject({
  ...common,
  type: z.literal('step'),
  step: count,
  model: z.string().optional(),
  input_tokens: count.optional(),
  output_tokens: count.optional(),
  cache_read_tokens: count.optional(),
  cache_write_tokens: count.optional(),
  reasoning_tokens: count.optional(),
  cost_usd: z.number().finite().nonnegative().optional(),
  latency_ms: z.number().finite().nonnegative().optional(),
  action: text.optional(),
  observation: text.optional(),
  error: errorInfo.optional(),
});

export const toolCallSchema = z.looseObject({
  ...common,
  type: z.literal('tool_call'),
  step: count.optional(),
  call_id: z.string().min(1).max(500).optional(),
  tool: z.string().min(1, 'tool must not be empty'),
  arguments: z.unknown().optional(),
  status: z.enum(['ok', 'error']).optional(),
  error: errorInfo.optional(),
  duration_ms: z.number().finite().nonnegative().optional(),
  output: text.optional(),
});

export const runEndSchema = z.looseObject({
  ...common,
  type: z.literal('run_end'),
  status: z.enum(RUN_STATUSES),
  reward: z.number().finite().optional(),
  tests: z.looseObject({ passed: count.optional(), failed: count.optional() }).optional(),
  failure_mode: z.string().min(1).max(100).optional(),
  error: errorInfo.optional(),
});

export const scoreSchema = z.looseObject({
  ...common,
  type: z.literal('score'),
  name: z.string().min(1),
  value: z.number().finite(),
  source: z.enum(['verifier', 'human', 'judge']).optional(),
  comment: text.optional(),
});

export const eventSchema = z.discriminatedUnion('type', [
  runStartSchema,
  stepSchema,
  toolCallSchema,
  runEndSchema,
  scoreSchema,
]);

export type RawEvent = z.infer<typeof eventSchema>;
export type RawRunStart = z.infer<typeof runStartSchema>;
export type RawStep = z.infer<typeof stepSchema>;
export type RawToolCall = z.infer<typeof toolCallSchema>;
export type RawRunEnd = z.infer<typeof runEndSchema>;
export type RawScore = z.infer<typeof scoreSchema>;

/** The names of the fields each type declares; everything else goes to metadata. */
export const KNOWN_FIELDS: Record<EventType, ReadonlySet<string>> = {
  run_start: new Set(Object.keys(runStartSchema.shape)),
  step: new Set(Object.keys(stepSchema.shape)),
  tool_call: new Set(Object.keys(toolCallSchema.shape)),
  run_end: new Set(Object.keys(runEndSchema.shape)),
  score: new Set(Object.keys(scoreSchema.shape)),
};
