// The rule editor's state: text fields as typed, turned into the rule JSON the API takes, and
// back from a rule the API shows. Per-kind parameters are described by PARAM_FIELDS. Pure.
import type { AlertRuleView } from '../../../schemas/api.js';

export type Kind = AlertRuleView['kind'];

export const KIND_LABELS: Record<Kind, string> = {
  dead_loop: 'Dead loop (live)',
  run_cost_over: 'Run cost over (live)',
  cost_spike: 'Cost spike',
  metric_threshold: 'Metric threshold',
  completion_rate_drop: 'Completion-rate drop',
  error_signature: 'Error signature (new or growing)',
};

export interface ParamField {
  name: string;
  label: string;
  type: 'number' | 'select' | 'text';
  options?: readonly string[];
  placeholder?: string;
  required?: boolean;
}

export const METRICS = [
  'completion_rate', 'cost_usd', 'cost_per_run', 'cost_per_success', 'runs', 'ended', 'failed', 'runs_with_loops',
  'steps_avg', 'steps_p90', 'tool_success_rate', 'latency_ms_avg',
] as const;

export const PARAM_FIELDS: Record<Kind, ParamField[]> = {
  dead_loop: [{ name: 'min_repetitions', label: 'Min repetitions', type: 'number', placeholder: 'any' }],
  run_cost_over: [
    { name: 'amount_usd', label: 'Amount (USD)', type: 'number', placeholder: 'e.g. 5' },
    { name: 'budget_fraction', label: 'Fraction of budget_usd', type: 'number', placeholder: 'e.g. 1' },
  ],
  cost_spike: [
    { name: 'z', label: 'Robust z above', type: 'number', placeholder: '3.5' },
    { name: 'window_s', label: 'Window (s)', type: 'number', placeholder: '86400' },
    { name: 'min_cohort_runs', label: 'Min cohort runs', type: 'number', placeholder: '20' },
  ],
  metric_threshold: [
    { name: 'metric', label: 'Metric', type: 'select', options: METRICS, required: true },
    { name: 'op', label: 'Op', type: 'select', options: ['<', '<=', '>', '>='], required: true },
    { name: 'value', label: 'Value', type: 'number', required: true },
    { name: 'window_s', label: 'Window (s)', type: 'number', placeholder: '3600' },
    { name: 'min_runs', label: 'Min runs', type: 'number', placeholder: '1' },
    { name: 'group_by', label: 'Group by', type: 'text', placeholder: 'e.g. model' },
  ],
  completion_rate_drop: [
    { name: 'window_s', label: 'Window (s)', type: 'number', placeholder: '3600' },
    { name: 'baseline_s', label: 'Baseline (s)', type: 'number', placeholder: '604800' },
    { name: 'min_drop', label: 'Min drop', type: 'number', placeholder: '0.1' },
    { name: 'min_runs', label: 'Min runs', type: 'number', placeholder: '20' },
    { name: 'group_by', label: 'Group by', type: 'text', placeholder: 'e.g. model' },
  ],
  error_signature: [
    { name: 'window_s', label: 'Window (s)', type: 'number', placeholder: '3600' },
    { name: 'new_min_runs', label: 'New: in more runs than', type: 'number', placeholder: '3' },
    { name: 'growth_factor', label: 'Known: growth factor', type: 'number', placeholder: '3' },
    { name: 'baseline_s', label: 'Baseline (s)', type: 'number', placeholder: '604800' },
    { name: 'min_runs', label: 'Known: min runs', type: 'number', placeholder: '5' },
  ],
};

export interface WebhookDraft {
  id?: string;
  url: string;
  format: 'json' | 'slack';
  /** '' keeps the stored secret of an existing webhook. */
  secret: string;
  hasSecret: boolean;
}

export interface RuleDraft {
  id?: string;
  name: string;
  kind: Kind;
  severity: 'info' | 'warning' | 'critical';
  cooldown_s: string;
  enabled: boolean;
  /** Comma lists as typed. */
  project: string;
  model: string;
  agent: string;
  category: string;
  /** `key:value` pairs, comma separated. */
  tags: string;
  params: Record<string, string>;
  webhooks: WebhookDraft[];
}

export function emptyDraft(kind: Kind = 'dead_loop', project = ''): RuleDraft {
  const params: Record<string, string> = kind === 'metric_threshold' ? { metric: 'completion_rate', op: '<', value: '0.6' } : {};
  return {
    name: '', kind, severity: 'warning', cooldown_s: '600', enabled: true, project, model: '', agent: '', category: '', tags: '', params,
    webhooks: [{ url: '', format: 'json', secret: '', hasSecret: false }],
  };
}

export function draftFromRule(r: AlertRuleView): RuleDraft {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.params ?? {})) if (v !== undefined && v !== null && !Array.isArray(v)) params[k] = String(v);
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    severity: r.severity,
    cooldown_s: String(r.cooldown_s),
    enabled: r.enabled,
    project: r.filters.project.join(', '),
    model: r.filters.model.join(', '),
    agent: r.filters.agent.join(', '),
    category: r.filters.category.join(', '),
    tags: Object.entries(r.filters.tag).map(([k, v]) => `${k}:${v}`).join(', '),
    params,
    webhooks: r.webhooks.map((w) => ({ id: w.id, url: w.url, format: w.format, secret: '', hasSecret: w.has_secret })),
  };
}

const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);

/** The body for POST/PUT /api/v1/alerts/rules, or the problems to fix first. */
export function draftToBody(d: RuleDraft): { ok: true; body: Record<string, unknown> } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  if (!d.name.trim()) errors.push('Name is required.');
  const cooldown = Number(d.cooldown_s);
  if (d.cooldown_s.trim() === '' || !Number.isInteger(cooldown) || cooldown < 0) errors.push('Cooldown must be a whole number of seconds.');
  const params: Record<string, unknown> = {};
  for (const f of PARAM_FIELDS[d.kind]) {
    const raw = (d.params[f.name] ?? '').trim();
    if (raw === '') {
      if (f.required) errors.push(`${f.label} is required.`);
      continue;
    }
    if (f.type === 'number') {
      const n = Number(raw);
      if (!Number.isFinite(n)) errors.push(`${f.label} must be a number.`);
      else params[f.name] = n;
    } else params[f.name] = raw;
  }
  const tag: Record<string, string> = {};
  for (const t of list(d.tags)) {
    const i = t.indexOf(':');
    if (i <= 0) errors.push(`Tag "${t}" must be key:value.`);
    else tag[t.slice(0, i)] = t.slice(i + 1);
  }
  if (d.webhooks.length === 0) errors.push('Add at least one webhook.');
  d.webhooks.forEach((w, i) => {
    if (!w.url.trim()) errors.push(`Webhook ${i + 1}: the URL is required.`);
    if (w.format === 'json' && !w.secret && !w.hasSecret) errors.push(`Webhook ${i + 1}: a signing secret is required for JSON webhooks.`);
  });
  if (errors.length) return { ok: false, errors };
  return {
    ok: true,
    body: {
      name: d.name.trim(),
      kind: d.kind,
      severity: d.severity,
      cooldown_s: cooldown,
      enabled: d.enabled,
      filters: { project: list(d.project), model: list(d.model), agent: list(d.agent), category: list(d.category), tag },
      params,
      webhooks: d.webhooks.map((w) => ({ ...(w.id ? { id: w.id } : {}), url: w.url.trim(), format: w.format, ...(w.secret ? { secret: w.secret } : {}) })),
    },
  };
}

/** One line describing a rule's filters and parameters, for the rules table. */
export function describeRule(r: AlertRuleView): string {
  const parts: string[] = [];
  const f = r.filters;
  if (f.project.length) parts.push(`project ${f.project.join('|')}`);
  if (f.model.length) parts.push(`model ${f.model.join('|')}`);
  if (f.agent.length) parts.push(`agent ${f.agent.join('|')}`);
  if (f.category.length) parts.push(`category ${f.category.join('|')}`);
  for (const [k, v] of Object.entries(f.tag)) parts.push(`${k}=${v}`);
  const p = r.params as Record<string, unknown>;
  switch (r.kind) {
    case 'metric_threshold':
      parts.unshift(`${p.metric} ${p.op} ${p.value} over ${seconds(Number(p.window_s))}`);
      break;
    case 'completion_rate_drop':
      parts.unshift(`drop ≥ ${Number(p.min_drop) * 100}% over ${seconds(Number(p.window_s))} vs ${seconds(Number(p.baseline_s))} before`);
      break;
    case 'run_cost_over':
      parts.unshift([p.amount_usd !== undefined ? `> $${p.amount_usd}` : '', p.budget_fraction !== undefined ? `> ${Number(p.budget_fraction) * 100}% of budget` : ''].filter(Boolean).join(' or '));
      break;
    case 'cost_spike':
      parts.unshift(`z > ${p.z ?? 'default'} over ${seconds(Number(p.window_s))}`);
      break;
    case 'error_signature':
      parts.unshift(`new in > ${p.new_min_runs} runs, or ${p.growth_factor}× its rate, over ${seconds(Number(p.window_s))}`);
      break;
    default:
      break;
  }
  return parts.join(' · ') || 'all runs';
}

export function seconds(s: number): string {
  if (!Number.isFinite(s)) return '—';
  if (s >= 86_400 && s % 86_400 === 0) return `${s / 86_400}d`;
  if (s >= 3600 && s % 3600 === 0) return `${s / 3600}h`;
  if (s >= 60 && s % 60 === 0) return `${s / 60}m`;
  return `${s}s`;
}
