// zod schemas of the API's smaller answers, for the OpenAPI document only (the routes build these
// answers from the interfaces of schemas/api.ts; each schema is typed against its interface, so
// the compiler says when one of them drifts from the other). Larger answers (runs, metrics,
// reports) are described in words in server/openapi/api-operations.ts.
import { z } from 'zod';
import type { ApiErrorBody, ChildRun, RunDetail, RunTotals, ApiKeyInfo, CreatedApiKey, FailureModeSide, FailuresComparison, FailuresReport, IngestResponse, ProjectList, SavedQuery, SavedQueryList, SqlResult, SqlSchema, WhoAmI } from '../../schemas/api.js';
import { SCOPES } from '../../schemas/api-keys.js';

/** What server/errors.ts answers for every error: `{"error": {"code", "message"}}`. */
export const errorBody: z.ZodType<ApiErrorBody> = z.object({
  error: z.object({
    code: z.string().describe('a stable machine-readable code, e.g. bad_request, missing_key, forbidden_scope, not_found'),
    message: z.string().describe('what went wrong, for people'),
  }),
});

export const ingestAnswer: z.ZodType<IngestResponse> = z.object({
  accepted: z.number().int().min(0),
  rejected: z.array(z.object({ index: z.number().int().describe('position of the event in the body (-1: the body itself)'), error: z.string() })),
});

const scope = z.enum(SCOPES);

export const apiKeyInfo: z.ZodType<ApiKeyInfo> = z.object({
  id: z.string(),
  project: z.string().nullable().describe('null for admin keys (every project)'),
  scope,
  name: z.string(),
  hint: z.string().describe('the first characters of the key, to recognise it'),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});

export const createdApiKey: z.ZodType<CreatedApiKey> = z.object({
  id: z.string(),
  project: z.string().nullable(),
  scope,
  name: z.string(),
  hint: z.string(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  key: z.string().describe('the key itself, shown this once'),
});

export const apiKeyList = z.object({ keys: z.array(apiKeyInfo) });

export const whoAmI: z.ZodType<WhoAmI> = z.object({
  mode: z.enum(['open', 'token', 'key']),
  scope,
  project: z.string().nullable(),
  key_id: z.string().nullable(),
  name: z.string().nullable(),
});

export const projectList: z.ZodType<ProjectList> = z.object({
  projects: z.array(z.object({ project: z.string(), runs: z.number().int(), last_event_at: z.string().nullable() })),
});

export const sqlResult: z.ZodType<SqlResult> = z.object({
  columns: z.array(z.object({ name: z.string(), type: z.string().describe('ClickHouse type, e.g. UInt64') })),
  rows: z.array(z.array(z.unknown())).describe('rows as arrays in column order'),
  stats: z.object({
    elapsed_ms: z.number(),
    rows: z.number().int(),
    rows_read: z.number().int(),
    bytes_read: z.number().int(),
    truncated: z.boolean().describe('true when the result had more rows than the console returns'),
  }),
});

export const sqlSchema: z.ZodType<SqlSchema> = z.object({
  tables: z.array(
    z.object({
      name: z.string(),
      engine: z.string(),
      description: z.string(),
      columns: z.array(z.object({ name: z.string(), type: z.string(), description: z.string() })),
    }),
  ),
});

export const savedQuery: z.ZodType<SavedQuery> = z.object({
  id: z.string(),
  project: z.string(),
  name: z.string(),
  sql: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const savedQueryList: z.ZodType<SavedQueryList> = z.object({ project: z.string(), saved_queries: z.array(savedQuery) });

export const trainerAnswer = z.object({
  recorded: z.object({ project: z.string(), training_step: z.number().int(), policy_version: z.string() }),
});

export const healthAnswer = z.object({ status: z.literal('ok') });

export const readyAnswer = z.object({
  status: z.enum(['ready', 'unready']),
  storage: z.enum(['up', 'down']).optional().describe('admin keys and open mode only, as the fields below'),
  kafka: z.enum(['up', 'down']).optional(),
  writer: z.object({ failing: z.boolean(), buffered_rows: z.number().int(), rows_written: z.number().int() }).optional(),
  leader: z
    .object({ alerts: z.boolean(), epoch: z.number().int().nullable() })
    .optional()
    .describe('with Kafka: whether this process runs the singleton work (window alert rules, outbox retries), and the epoch of its lead'),
});

/** OTLP's answer to an export (JSON encoding; protobuf carries the same message). */
export const otlpExportAnswer = z.object({
  partialSuccess: z.object({ rejectedSpans: z.string(), errorMessage: z.string() }).optional(),
});

/** OTLP's error body, google.rpc.Status (JSON encoding). */
export const otlpStatus = z.object({ code: z.number().int(), message: z.string() });

const interval = z.object({ low: z.number(), high: z.number() });

const failureModeSide: z.ZodType<FailureModeSide> = z.object({
  runs: z.number().int().min(0),
  rate: z.number().nullable().describe('runs / the window\'s ended runs (the failure rate of the mode); null when none ended'),
  rate_ci: interval.nullable().describe('Wilson 95% interval of rate'),
});

export const failuresComparison: z.ZodType<FailuresComparison> = z.object({
  window: z.object({ from: z.string().nullable(), to: z.string().describe('now when the request gave no `to`') }),
  baseline: z.object({
    from: z.string(),
    to: z.string(),
    runs: z.number().int().min(0).describe('runs of the baseline window that ended'),
    failed: z.number().int().min(0).describe('of them, runs that ended without success'),
  }),
  test: z.literal('two_proportion_z'),
  alpha: z.number(),
  modes: z
    .array(
      z.object({
        mode: z.string(),
        before: failureModeSide,
        now: failureModeSide,
        change: z.number().nullable().describe('now.rate − before.rate (0.01 = one percentage point)'),
        z: z.number(),
        p_value: z.number().describe('two-sided, pooled two-proportion z test of the two rates'),
        significant: z.boolean().describe('p_value < alpha'),
      }),
    )
    .describe('every mode of either window (0 runs on the other side), largest change first'),
});

export const failuresReport: z.ZodType<FailuresReport> = z.object({
  runs: z.number().int().min(0).describe('runs that ended with a verdict (run_end, a verifier verdict, or abandoned)'),
  failed: z.number().int().min(0).describe('of them, runs that ended without success'),
  without_verdict: z.number().int().min(0).describe('runs that ended without a verdict (status submitted): not failures, not in runs'),
  modes: z.array(
    z.object({
      mode: z.string(),
      runs: z.number().int().min(0),
      share: z.number().describe('runs / failed'),
      rules: z.array(z.string()),
      examples: z.array(z.string()).describe('the most recent runs of the mode'),
    }),
  ),
  over_time: z.object({
    bucket_seconds: z.number().int(),
    points: z.array(z.object({ bucket: z.string(), counts: z.record(z.string(), z.number().int()) })),
  }),
  by: z.string(),
  by_dimension: z.array(z.object({ key: z.string(), runs: z.number().int(), counts: z.record(z.string(), z.number().int()) })),
  comparison: failuresComparison.nullable().describe('the window against its baseline; null when the window has no start and no base_from/base_to were given'),
});

const runTotals: z.ZodType<RunTotals> = z.object({
  runs: z.number().int().describe('the run and its children'),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: z.number(),
  cost_estimated: z.boolean().describe('some of the cost was priced from the model table'),
});

const childRun: z.ZodType<ChildRun> = z.object({
  run_id: z.string(),
  status: z.enum(['success', 'failure', 'error', 'timeout', 'cancelled', 'abandoned', 'running']),
  started_at: z.string(),
  agent_name: z.string(),
  steps: z.number().int(),
  tool_calls: z.number().int(),
  tool_errors: z.number().int(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: z.number(),
  cost_estimated: z.boolean(),
  spawned_by: z
    .object({ call_id: z.string().nullable(), step: z.number().int().nullable() })
    .nullable()
    .describe("the parent's tool call that started it, from the child's run_start metadata (spawned_by or parent); null when not named"),
});

/** The child-run fields of RunDetail; its other fields (run, steps, tool_calls, scores, analysis) are described in words. */
export const runDetailChildren: z.ZodType<Pick<RunDetail, 'children' | 'children_total' | 'with_children'>> = z.looseObject({
  children: z.array(childRun).describe('direct child runs (parent_run_id = this run), oldest first, at most 200'),
  children_total: z.number().int().describe('every direct child run, listed or not'),
  with_children: runTotals.describe('cost and tokens of the run plus all its descendants (subagents at any depth, 8 levels at most)'),
});
