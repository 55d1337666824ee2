// Alert rules (issue 6): what a rule says, validated with zod. A rule is JSON like
// {"name", "kind", "filters": {"project", "model", ...}, "params": {...}, "cooldown_s",
//  "severity", "enabled", "webhooks": [{"url", "secret", "format": "json" | "slack"}]}.
// Pure: no I/O. Webhook targets are checked separately (webhook-target.ts).
import { z } from 'zod';

export const RULE_KINDS = ['dead_loop', 'cost_spike', 'run_cost_over', 'metric_threshold', 'completion_rate_drop', 'error_signature'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

/** Kinds evaluated on a schedule over a window of runs (the others come from the ingest path). */
export const WINDOW_KINDS: readonly RuleKind[] = ['metric_threshold', 'completion_rate_drop', 'cost_spike', 'error_signature'];
/** Kinds whose state can recover, so a `resolved` notification is sent. */
export const RESOLVING_KINDS: readonly RuleKind[] = ['metric_threshold', 'completion_rate_drop'];

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Overview metrics (schemas/api.ts RunMetrics) a metric_threshold rule can watch. */
export const THRESHOLD_METRICS = [
  'completion_rate', 'cost_usd', 'cost_per_run', 'cost_per_success', 'runs', 'ended', 'successes', 'running', 'failed',
  'runs_with_loops', 'suspicious', 'steps_avg', 'steps_p50', 'steps_p90', 'tool_success_rate', 'self_correction_rate',
  'latency_ms_avg', 'input_tokens', 'output_tokens',
] as const;
export type ThresholdMetric = (typeof THRESHOLD_METRICS)[number];

/** Dimensions window rules can group by (one cohort per value); `tag:<key>` too. */
export const GROUP_BY_DIMENSIONS = ['project', 'model', 'agent', 'agent_version', 'task_category', 'environment'] as const;

const name = z.string().trim().min(1).max(200);
/** One value or a list; stored as a list. */
const values = z
  .union([name, z.array(name).max(50)])
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]));

export const ruleFiltersSchema = z
  .object({
    project: values,
    model: values,
    agent: values,
    /** The task category. */
    category: values,
    /** Tags the run must carry, {key: value}; "key:value" strings are accepted too. */
    tag: z
      .union([z.record(name, z.string().max(500)), z.array(z.string()), z.string()])
      .optional()
      .transform((v, ctx) => {
        if (v === undefined) return {} as Record<string, string>;
        if (typeof v === 'object' && !Array.isArray(v)) return v;
        const out: Record<string, string> = {};
        for (const t of Array.isArray(v) ? v : [v]) {
          const i = t.indexOf(':');
          if (i <= 0) {
            ctx.addIssue({ code: 'custom', message: `tag must be key:value (got ${t})` });
            return z.NEVER;
          }
          out[t.slice(0, i)] = t.slice(i + 1);
        }
        return out;
      }),
  })
  .strict()
  .prefault({});

export type RuleFilters = z.output<typeof ruleFiltersSchema>;

const groupBy = z
  .string()
  .refine((s) => (GROUP_BY_DIMENSIONS as readonly string[]).includes(s) || /^tag:.+/.test(s), {
    message: `group_by must be one of ${GROUP_BY_DIMENSIONS.join(', ')} or tag:<key>`,
  })
  .optional();
const seconds = (min: number, max: number) => z.number().int().min(min).max(max);
const DAY = 86_400;

export const deadLoopParams = z
  .object({
    /** Loop kinds that fire (default all). */
    loop_kinds: z.array(z.enum(['repeat', 'cycle', 'stall'])).min(1).optional(),
    /** Only loops with at least this many repetitions. */
    min_repetitions: z.number().int().min(1).optional(),
  })
  .strict();

export const costSpikeParams = z
  .object({
    /** Robust z above which a run is a spike (default: TRAJSCOPE_COST_SPIKE_Z, 3.5). */
    z: z.number().positive().optional(),
    /** Trailing window of runs (by start) that make the cohorts. */
    window_s: seconds(60, 90 * DAY).default(DAY),
    /** Fewest runs in a cohort. */
    min_cohort_runs: z.number().int().min(3).default(20),
  })
  .strict();

export const runCostOverParams = z
  .object({
    /** Fire when a run's cost passes this amount while it runs. */
    amount_usd: z.number().positive().optional(),
    /** Fire when a run's cost passes this fraction of its own budget_usd (1 = the budget). */
    budget_fraction: z.number().positive().optional(),
  })
  .strict()
  .refine((p) => p.amount_usd !== undefined || p.budget_fraction !== undefined, {
    message: 'params needs amount_usd or budget_fraction',
  });

export const metricThresholdParams = z
  .object({
    metric: z.enum(THRESHOLD_METRICS),
    op: z.enum(['<', '<=', '>', '>=']),
    value: z.number().finite(),
    /** Runs that started in the last window_s seconds. */
    window_s: seconds(60, 90 * DAY).default(3600),
    /** Fewest runs in the window (ended runs for rates of ended runs) to judge at all. */
    min_runs: z.number().int().min(1).default(1),
    group_by: groupBy,
  })
  .strict();

export const completionRateDropParams = z
  .object({
    /** The cohort: runs that started in the last window_s seconds. */
    window_s: seconds(60, 90 * DAY).default(3600),
    /** Its baseline: runs that started in the baseline_s seconds before the window. */
    baseline_s: seconds(60, 365 * DAY).default(7 * DAY),
    /** Fire when the completion rate is lower than the baseline's by at least this (absolute). */
    min_drop: z.number().min(0).max(1).default(0.1),
    /** Fewest ended runs in the window and in the baseline. */
    min_runs: z.number().int().min(1).default(20),
    /** And the two-proportion z test's one-sided p-value is at most this (1 = no test). */
    max_p_value: z.number().min(0).max(1).default(0.05),
    group_by: groupBy,
  })
  .strict();

export const errorSignatureParams = z
  .object({
    /** The errors of the last window_s seconds (their own time). */
    window_s: seconds(60, 90 * DAY).default(3600),
    /** A signature first seen in the window fires once it is in more than this many runs. */
    new_min_runs: z.number().int().min(0).default(3),
    /** A known one fires when its occurrences per second in the window reach this many times its rate in the baseline... */
    growth_factor: z.number().min(1).default(3),
    /** ...the baseline_s seconds before the window... */
    baseline_s: seconds(60, 365 * DAY).default(7 * DAY),
    /** ...and it is in at least this many runs of the window. */
    min_runs: z.number().int().min(1).default(5),
  })
  .strict();

export const WEBHOOK_FORMATS = ['json', 'slack'] as const;

export const webhookInputSchema = z
  .object({
    /** Kept across updates: an update that names a webhook's id may leave its secret out. */
    id: z.string().min(1).max(100).optional(),
    url: z.string().trim().min(1).max(2000),
    /** Signing secret (write-only: the API never returns it). */
    secret: z.string().min(8, 'secret must be at least 8 characters').max(500).optional(),
    format: z.enum(WEBHOOK_FORMATS).default('json'),
  })
  .strict();

const base = {
  name,
  filters: ruleFiltersSchema,
  cooldown_s: seconds(0, 30 * DAY).default(600),
  severity: z.enum(SEVERITIES).default('warning'),
  enabled: z.boolean().default(true),
  webhooks: z.array(webhookInputSchema).min(1, 'a rule needs at least one webhook').max(10),
};

export const ruleInputSchema = z.discriminatedUnion('kind', [
  z.object({ ...base, kind: z.literal('dead_loop'), params: deadLoopParams.prefault({}) }).strict(),
  z.object({ ...base, kind: z.literal('cost_spike'), params: costSpikeParams.prefault({}) }).strict(),
  z.object({ ...base, kind: z.literal('run_cost_over'), params: runCostOverParams }).strict(),
  z.object({ ...base, kind: z.literal('metric_threshold'), params: metricThresholdParams }).strict(),
  z.object({ ...base, kind: z.literal('completion_rate_drop'), params: completionRateDropParams.prefault({}) }).strict(),
  z.object({ ...base, kind: z.literal('error_signature'), params: errorSignatureParams.prefault({}) }).strict(),
]);

export type RuleInput = z.output<typeof ruleInputSchema>;
export type WebhookInput = z.output<typeof webhookInputSchema>;

export interface Webhook {
  id: string;
  url: string;
  /** '' when none. */
  secret: string;
  format: (typeof WEBHOOK_FORMATS)[number];
}

/** Omit over each member of a union (keeps the kind → params link). */
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A stored rule (with its webhooks' secrets: never sent to a client as it is). */
export type AlertRule = OmitEach<RuleInput, 'webhooks'> & {
  id: string;
  webhooks: Webhook[];
  created_at: string;
  updated_at: string;
};

/** What the API shows of a rule: secrets replaced by whether one is set. */
export type PublicRule = OmitEach<AlertRule, 'webhooks'> & {
  webhooks: { id: string; url: string; format: Webhook['format']; has_secret: boolean }[];
};

export function toPublicRule(rule: AlertRule): PublicRule {
  return { ...rule, webhooks: rule.webhooks.map((w) => ({ id: w.id, url: w.url, format: w.format, has_secret: w.secret !== '' })) };
}

export type ParsedRule = { ok: true; rule: RuleInput } | { ok: false; errors: string[] };

/** Validates a rule body; errors name the path of each bad field. */
export function parseRuleInput(body: unknown): ParsedRule {
  const r = ruleInputSchema.safeParse(body);
  if (r.success) return { ok: true, rule: r.data };
  return { ok: false, errors: r.error.issues.map((i) => `${i.path.join('.') || 'rule'}: ${i.message}`) };
}

/**
 * Webhooks of an updated rule: one that names the id of an existing webhook keeps its secret when
 * it sends none; a new one gets `newId()`. A json webhook needs a secret (signatures are the point).
 */
export function mergeWebhooks(
  input: readonly WebhookInput[],
  existing: readonly Webhook[],
  newId: () => string,
): { ok: true; webhooks: Webhook[] } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const webhooks = input.map((w, i) => {
    const old = w.id ? existing.find((e) => e.id === w.id) : undefined;
    if (w.id && !old) errors.push(`webhooks.${i}.id: no webhook ${w.id} in this rule`);
    const secret = w.secret ?? old?.secret ?? '';
    if (w.format === 'json' && secret === '') errors.push(`webhooks.${i}.secret: a json webhook needs a secret (at least 8 characters)`);
    return { id: old?.id ?? newId(), url: w.url, secret, format: w.format };
  });
  return errors.length ? { ok: false, errors } : { ok: true, webhooks };
}
