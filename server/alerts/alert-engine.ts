// The alert engine: keeps the rules and their per-key state in memory (persisted in ClickHouse),
// turns live signals of the ingest path into firings within a second or two (dead_loop from the
// live loop detector's recorded signals, run_cost_over from the running cost of active runs),
// evaluates window rules on a schedule (metric_threshold, completion_rate_drop, cost_spike), and
// hands each firing's webhooks to the durable delivery worker.
import { randomUUID } from 'node:crypto';
import type { Config } from '../../bin/config.js';
import { decide, type AlertState, type Observation } from '../../analytics/alerts/firing-decisions.js';
import { renderBody, type AlertPayload } from '../../analytics/alerts/payload.js';
import { matchesFilters, type RunAttributes } from '../../analytics/alerts/rule-match.js';
import { RESOLVING_KINDS, WINDOW_KINDS, type AlertRule, type RuleFilters } from '../../analytics/alerts/rule-schema.js';
import { costLimit, crosses, RunCostTracker } from '../../analytics/alerts/run-cost-tracker.js';
import { evaluateCompletionDrop, evaluateThreshold } from '../../analytics/alerts/window-evaluation.js';
import { WebhookAllowList } from '../../analytics/alerts/webhook-target.js';
import type { PriceBook } from '../../analytics/pricing.js';
import type { Loop } from '../../analytics/loops/index.js';
import type { LoopSignal } from '../../ingest/analysis/live-loops.js';
import type { RunMetrics } from '../../schemas/api.js';
import type { TrajEvent } from '../../schemas/normalize-event.js';
import type { Storage } from '../../storage/gateway.js';
import { getCostSpikes } from '../costs/cost-spikes-queries.js';
import { AlertsStore, stateKey, type OutboxItem } from './alerts-store.js';
import { DeliveryWorker } from './delivery-worker.js';
import { ruleRunFilters, windowMetrics } from './window-metrics.js';

export interface AlertEngineOptions {
  config: Pick<Config, 'alerts' | 'analysis' | 'host' | 'port'>;
  prices: PriceBook;
  onError: (msg: string, err: unknown) => void;
  clock?: () => number;
}

/** Runs whose latest steps are kept (texts of RECENT_STEPS steps each, cut to TEXT characters). */
const RECENT_RUNS = 5000;
const RECENT_STEPS = 16;
/** Keys of per-key state kept in memory at most (run keys of old firings are dropped first). */
const MAX_STATES = 200_000;
/** Steps of a loop put in a dead_loop payload at most. */
const MAX_LOOP_STEPS = 50;
const TEXT = 200;

type FiringParts = Pick<AlertPayload, 'summary' | 'key' | 'run' | 'cohort' | 'values' | 'loop'> & { project: string; run_id: string };

export class AlertEngine {
  readonly store: AlertsStore;
  readonly worker: DeliveryWorker;
  readonly allow: WebhookAllowList;
  private rules: AlertRule[] = [];
  private states = new Map<string, AlertState>();
  private readonly tracker: RunCostTracker;
  /** The latest steps of active runs (texts cut short), so a dead_loop payload needs no query. */
  private readonly recent = new RecentSteps(RECENT_RUNS, RECENT_STEPS);
  private evalTimer: NodeJS.Timeout | null = null;
  private evaluating: Promise<void> | null = null;
  private readonly pendingWork = new Set<Promise<unknown>>();
  private readonly clock: () => number;
  private closed = false;
  readonly stats = { fired: 0, resolved: 0, suppressed: 0 };

  constructor(
    private readonly storage: Storage,
    private readonly opts: AlertEngineOptions,
  ) {
    this.clock = opts.clock ?? Date.now;
    this.store = new AlertsStore(storage);
    this.allow = new WebhookAllowList(opts.config.alerts.webhookAllow);
    this.tracker = new RunCostTracker(opts.config.analysis.liveMaxRuns);
    const a = opts.config.alerts;
    this.worker = new DeliveryWorker(this.store, {
      timeoutMs: a.timeoutMs,
      maxAttempts: a.maxAttempts,
      retryBaseMs: a.retryBaseMs,
      retryMaxMs: a.retryMaxMs,
      allow: this.allow,
      secretOf: (ruleId, webhookId) => this.rules.find((r) => r.id === ruleId)?.webhooks.find((w) => w.id === webhookId)?.secret,
      onError: opts.onError,
    });
  }

  async start(): Promise<void> {
    await this.reloadRules();
    this.states = await this.store.loadStates(MAX_STATES);
    await this.worker.start();
    this.evalTimer = setInterval(() => void this.evaluateWindows().catch((err) => this.opts.onError('alert evaluation failed', err)), this.opts.config.alerts.evalIntervalMs);
    this.evalTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.evalTimer) clearInterval(this.evalTimer);
    await this.evaluating?.catch(() => {});
    await Promise.allSettled([...this.pendingWork]);
    await this.worker.close();
  }

  /** Resolves once the firings started so far are stored and handed to the delivery worker. */
  async idle(): Promise<void> {
    while (this.pendingWork.size) await Promise.allSettled([...this.pendingWork]);
  }

  /** Re-reads the rules (after a change through the API). */
  async reloadRules(): Promise<void> {
    this.rules = await this.store.listRules();
  }

  /** The rules (with secrets: callers show them through toPublicRule). */
  listRules(): AlertRule[] {
    return this.rules;
  }

  getRule(id: string): AlertRule | undefined {
    return this.rules.find((r) => r.id === id);
  }

  private enabled(kind: AlertRule['kind']): AlertRule[] {
    return this.rules.filter((r) => r.enabled && r.kind === kind);
  }

  // ---- live: the ingest path ----

  /** Events as the ingestor took them (the writer has their rows): running cost and attributes of active runs. */
  onEvents(events: readonly TrajEvent[]): void {
    if (this.closed) return;
    const costRules = this.enabled('run_cost_over');
    if (costRules.length === 0 && this.enabled('dead_loop').length === 0) return;
    for (const e of events) {
      if (e.type === 'run_start') {
        this.tracker.add({ type: e.type, project: e.project, run_id: e.run_id, model: e.model, agent_name: e.agent_name, agent_version: e.agent_version, task_category: e.task_category, tags: e.tags, budget_usd: e.budget_usd });
      } else if (e.type === 'run_end') {
        this.tracker.add({ type: e.type, project: e.project, run_id: e.run_id });
      } else if (e.type === 'tool_call') {
        if (e.step !== null) this.recent.addCall(e.project, e.run_id, e.step, `${e.tool}(${e.arguments})`, e.output);
      } else if (e.type === 'step') {
        this.recent.addStep(e.project, e.run_id, e.step, e.action, e.observation, e.error_type ? `${e.error_type}: ${e.error_message}` : '');
        const known = this.tracker.get(e.project, e.run_id);
        const cost = e.cost_usd ?? this.opts.prices.cost(e.model || known?.model || '', e) ?? 0;
        const grown = this.tracker.add({ type: 'step', project: e.project, run_id: e.run_id, step: e.step, model: e.model }, cost);
        if (!grown) continue;
        for (const rule of costRules) {
          const limit = costLimit(rule.params as { amount_usd?: number; budget_fraction?: number }, grown.run.budget_usd);
          if (limit === null || !crosses(grown.before, grown.run.cost_usd, limit)) continue;
          if (!matchesFilters(rule.filters, grown.run)) continue;
          const run = grown.run;
          this.track(
            this.fireLive(rule, {
              project: run.project,
              run_id: run.run_id,
              key: runKey(run.project, run.run_id),
              summary: `run ${run.run_id} has cost $${run.cost_usd.toFixed(2)}, past its limit of $${limit.toFixed(2)}, at step ${e.step}`,
              run: runOf(run),
              cohort: null,
              values: { cost_usd: round(run.cost_usd), limit_usd: round(limit), budget_usd: run.budget_usd ?? null, step: e.step, steps: run.steps },
            }),
          );
        }
      }
    }
  }

  /** Loop signals the live loop detector has just stored: dead_loop rules fire. */
  onLoopSignals(signals: readonly LoopSignal[]): void {
    if (this.closed || this.enabled('dead_loop').length === 0) return;
    for (const s of signals) this.track(this.handleLoop(s));
  }

  private async handleLoop(s: LoopSignal): Promise<void> {
    const rules = this.enabled('dead_loop');
    if (rules.length === 0) return;
    const loop = JSON.parse(s.details) as Loop;
    const attrs = await this.runAttributes(s.project, s.run_id);
    const matching = rules.filter((r) => {
      const p = r.params as { loop_kinds?: string[]; min_repetitions?: number };
      if (p.loop_kinds && !p.loop_kinds.includes(loop.kind)) return false;
      if (p.min_repetitions !== undefined && loop.repetitions < p.min_repetitions) return false;
      return matchesFilters(r.filters, attrs);
    });
    if (matching.length === 0) return;
    let steps: NonNullable<AlertPayload['loop']>['steps'] | null = null;
    for (const rule of matching) {
      const key = runKey(s.project, s.run_id);
      if (!this.claim(rule, key, 'event')) continue;
      steps ??= this.recent.range(s.project, s.run_id, loop.first_step, Math.min(loop.last_step, loop.first_step + MAX_LOOP_STEPS - 1));
      steps ??= await this.loopSteps(s.project, s.run_id, loop).catch(() => stepRange(loop));
      await this.emit(rule, key, 'fire', {
        project: s.project,
        run_id: s.run_id,
        key,
        summary: `run ${s.run_id} is in a dead loop (${loop.kind}, steps ${loop.first_step}–${loop.last_step}, ${loop.repetitions} repetitions, $${loop.cost_usd.toFixed(2)} inside it)`,
        run: runOf(attrs),
        cohort: null,
        values: { loop_kind: loop.kind, first_step: loop.first_step, last_step: loop.last_step, period: loop.period, repetitions: loop.repetitions, tokens: loop.tokens, cost_usd: round(loop.cost_usd) },
        loop: { ...loop, steps },
      });
    }
  }

  private async fireLive(rule: AlertRule, parts: FiringParts): Promise<void> {
    if (!this.claim(rule, parts.key, 'event')) return;
    await this.emit(rule, parts.key, 'fire', parts);
  }

  /** The run's model, agent, category and tags: from the events seen, else from storage. */
  private async runAttributes(project: string, runId: string): Promise<RunAttributes> {
    const known = this.tracker.get(project, runId);
    if (known?.started) return known;
    const [r] = await this.storage.query<Record<string, string | number | null>>(
      `SELECT ifNull(anyLast(model), '') AS model, ifNull(anyLast(step_model), '') AS step_model, ifNull(anyLast(agent_name), '') AS agent,
              ifNull(anyLast(agent_version), '') AS agent_version, ifNull(anyLast(task_category), '') AS task_category,
              ifNull(anyLast(tags), '{}') AS tags, anyLast(budget_usd) AS budget_usd
       FROM runs WHERE project = {project:String} AND run_id = {run_id:String}`,
      { project, run_id: runId },
    );
    let tags: Record<string, string> = {};
    try {
      tags = JSON.parse(String(r?.tags ?? '{}')) ?? {};
    } catch {
      /* not JSON: no tags */
    }
    return {
      project,
      run_id: runId,
      model: String(r?.model || r?.step_model || known?.model || ''),
      step_models: [String(r?.step_model ?? ''), ...(known?.step_models ?? [])].filter(Boolean),
      agent: String(r?.agent ?? ''),
      agent_version: String(r?.agent_version ?? ''),
      task_category: String(r?.task_category ?? ''),
      tags,
      budget_usd: r?.budget_usd == null ? null : Number(r.budget_usd),
    };
  }

  private async loopSteps(project: string, runId: string, loop: Loop): Promise<NonNullable<AlertPayload['loop']>['steps']> {
    const params = { project, run_id: runId, first: loop.first_step, last: Math.min(loop.last_step, loop.first_step + MAX_LOOP_STEPS - 1) };
    const [steps, calls] = await Promise.all([
      this.storage.query<{ step: number; action: string; observation: string; error_type: string; error_message: string }>(
        `SELECT step, action, observation, error_type, error_message FROM steps FINAL
         PREWHERE project = {project:String} AND run_id = {run_id:String} WHERE step BETWEEN {first:UInt32} AND {last:UInt32} ORDER BY step`,
        params,
      ),
      this.storage.query<{ step: number; tool: string; arguments: string; output: string }>(
        `SELECT step, tool, arguments, output FROM tool_calls FINAL
         PREWHERE project = {project:String} AND run_id = {run_id:String} WHERE step BETWEEN {first:UInt32} AND {last:UInt32} ORDER BY step, call_id`,
        params,
      ),
    ]);
    const callsByStep = new Map<number, string[]>();
    const outputs = new Map<number, string>();
    for (const c of calls) {
      const n = Number(c.step);
      callsByStep.set(n, [...(callsByStep.get(n) ?? []), `${c.tool}(${c.arguments})`]);
      if (!outputs.has(n)) outputs.set(n, c.output);
    }
    const byStep = new Map(steps.map((s) => [Number(s.step), s]));
    const out: NonNullable<AlertPayload['loop']>['steps'] = [];
    for (let n = params.first; n <= params.last; n++) {
      const s = byStep.get(n);
      const action = s?.action || callsByStep.get(n)?.join('; ') || '';
      const observation = s?.observation || outputs.get(n) || '';
      out.push({ step: n, action: cut(action), observation: cut(observation), ...(s?.error_type ? { error: cut(`${s.error_type}: ${s.error_message}`) } : {}) });
    }
    return out;
  }

  // ---- window rules ----

  /** Evaluates every enabled window rule once now (also runs on the schedule). */
  evaluateWindows(): Promise<void> {
    if (this.evaluating) return this.evaluating;
    this.evaluating = (async () => {
      for (const rule of this.rules.filter((r) => r.enabled && WINDOW_KINDS.includes(r.kind))) {
        if (this.closed) break;
        try {
          await this.evaluateRule(rule);
        } catch (err) {
          this.opts.onError(`evaluating alert rule ${rule.name} failed`, err);
        }
      }
    })().finally(() => {
      this.evaluating = null;
    });
    return this.evaluating;
  }

  private async evaluateRule(rule: AlertRule): Promise<void> {
    const now = this.clock();
    if (rule.kind === 'metric_threshold') {
      const p = rule.params;
      const from = now - p.window_s * 1000;
      const groups = await windowMetrics(this.storage, ruleRunFilters(rule.filters, from, now), p.group_by);
      for (const key of this.keysToJudge(rule, groups)) {
        const m = groups.get(key) ?? emptyMetrics();
        const v = evaluateThreshold(m as never, p);
        await this.judge(rule, key, v.observation, {
          project: projectOf(rule.filters),
          run_id: '',
          key,
          summary: `${p.metric} is ${fmt(v.value)} (${p.op} ${p.value}) over the last ${duration(p.window_s)}${key === '*' ? '' : ` for ${key}`}`,
          run: null,
          cohort: cohortOf(rule.filters, key, from, now),
          values: { metric: p.metric, value: v.value, threshold: p.value, op: p.op, runs: m.runs, ended: m.ended, window_s: p.window_s },
        });
      }
    } else if (rule.kind === 'completion_rate_drop') {
      const p = rule.params;
      const from = now - p.window_s * 1000;
      const baseFrom = from - p.baseline_s * 1000;
      const [recent, baseline] = await Promise.all([
        windowMetrics(this.storage, ruleRunFilters(rule.filters, from, now), p.group_by),
        windowMetrics(this.storage, ruleRunFilters(rule.filters, baseFrom, from), p.group_by),
      ]);
      for (const key of this.keysToJudge(rule, recent)) {
        const r = recent.get(key) ?? emptyMetrics();
        const b = baseline.get(key) ?? emptyMetrics();
        const v = evaluateCompletionDrop(r, b, p);
        await this.judge(rule, key, v.observation, {
          project: projectOf(rule.filters),
          run_id: '',
          key,
          summary: `completion rate ${pct(v.rate)} over the last ${duration(p.window_s)} against ${pct(v.baseline_rate)} before${key === '*' ? '' : ` for ${key}`}`,
          run: null,
          cohort: cohortOf(rule.filters, key, from, now),
          values: {
            completion_rate: round(v.rate),
            baseline_rate: round(v.baseline_rate),
            drop: round(v.drop),
            p_value: v.p_value === null ? null : Number(v.p_value.toPrecision(3)),
            ended: v.ended,
            baseline_ended: v.baseline_ended,
            window_s: p.window_s,
            baseline_s: p.baseline_s,
          },
        });
      }
    } else if (rule.kind === 'cost_spike') {
      const p = rule.params;
      const from = now - p.window_s * 1000;
      const report = await getCostSpikes(
        this.storage,
        ruleRunFilters(rule.filters, from, now),
        { zThreshold: p.z ?? this.opts.config.analysis.costSpikeZ, minCohortRuns: p.min_cohort_runs },
        100,
      );
      for (const s of report.runs) {
        const key = runKey(s.project, s.run_id);
        await this.judge(rule, key, 'holds', {
          project: s.project,
          run_id: s.run_id,
          key,
          summary: `run ${s.run_id} cost $${s.cost_usd.toFixed(2)}, ${s.factor === null ? '' : `${s.factor.toFixed(1)}× `}its cohort's median ($${s.cohort_median.toFixed(2)}; robust z ${s.z === Infinity ? '∞' : s.z.toFixed(1)})`,
          run: { project: s.project, run_id: s.run_id, model: s.cohort.model, task_category: s.cohort.task_category },
          cohort: cohortOf(rule.filters, `model=${s.cohort.model}, task_category=${s.cohort.task_category}`, from, now),
          values: { cost_usd: round(s.cost_usd), z: Number.isFinite(s.z) ? round(s.z) : 'inf', cohort_median: round(s.cohort_median), cohort_runs: s.cohort_runs, factor: round(s.factor) },
        });
      }
    }
  }

  /** Cohorts seen now, plus those firing (so a cohort that vanished from the window can resolve). */
  private keysToJudge(rule: AlertRule, groups: Map<string, unknown>): string[] {
    const keys = new Set(groups.keys());
    if (!rule.params || !('group_by' in rule.params) || !rule.params.group_by) keys.add('*');
    const prefix = stateKey(rule.id, '');
    for (const [k, s] of this.states) if (s.status === 'firing' && k.startsWith(prefix)) keys.add(k.slice(prefix.length));
    return [...keys];
  }

  private async judge(rule: AlertRule, key: string, observation: Observation, parts: FiringParts): Promise<void> {
    const action = this.claim(rule, key, observation);
    if (action) await this.emit(rule, key, action, parts);
  }

  /**
   * Decides (dedup, cooldown, resolution) and records the new state in memory at once, before any
   * await, so two signals of one run arriving together fire once. Returns what to send.
   */
  private claim(rule: AlertRule, key: string, observation: Observation): 'fire' | 'resolve' | null {
    const k = stateKey(rule.id, key);
    const d = decide(this.states.get(k), observation, this.clock(), rule.cooldown_s * 1000, RESOLVING_KINDS.includes(rule.kind));
    if (d.action === 'none') {
      if (d.reason === 'cooldown' || d.reason === 'already firing') this.stats.suppressed++;
      return null;
    }
    this.states.delete(k);
    this.states.set(k, d.next);
    while (this.states.size > MAX_STATES) this.states.delete(this.states.keys().next().value as string);
    return d.action;
  }

  /** Stores the firing and its state, and hands its webhooks to the delivery worker. */
  private async emit(rule: AlertRule, key: string, action: 'fire' | 'resolve', parts: FiringParts): Promise<void> {
    const now = this.clock();
    const status = action === 'fire' ? 'firing' : 'resolved';
    const payload: AlertPayload = {
      id: randomUUID(),
      type: action === 'fire' ? 'alert.firing' : 'alert.resolved',
      status,
      rule: { id: rule.id, name: rule.name },
      kind: rule.kind,
      severity: rule.severity,
      summary: action === 'resolve' ? `resolved: ${parts.summary}` : parts.summary,
      key,
      run: parts.run,
      cohort: parts.cohort,
      values: parts.values,
      ...(parts.loop ? { loop: parts.loop } : {}),
      url: this.linkFor(parts),
      fired_at: new Date(now).toISOString(),
    };
    if (action === 'fire') this.stats.fired++;
    else this.stats.resolved++;
    const state = this.states.get(stateKey(rule.id, key));
    // The outbox first (its write is what the first attempt waits for); history and state alongside.
    await Promise.all([
      this.worker.submit(this.deliveries(rule, payload, now)),
      this.store.insertFiring({
        firing_id: payload.id, rule_id: rule.id, rule_name: rule.name, kind: rule.kind, severity: rule.severity, status, key,
        project: parts.project, run_id: parts.run_id, summary: payload.summary, payload: JSON.stringify(payload), fired_at: now,
      }),
      state ? this.store.saveState(rule.id, key, state) : Promise.resolve(),
    ]);
  }

  /** Sends a test payload to the rule's webhooks (or one of them); returns the delivery ids. */
  async sendTest(rule: AlertRule, webhookId?: string): Promise<string[]> {
    const now = this.clock();
    const payload: AlertPayload = {
      id: randomUUID(),
      type: 'alert.test',
      status: 'test',
      rule: { id: rule.id, name: rule.name },
      kind: rule.kind,
      severity: rule.severity,
      summary: `test of the alert rule "${rule.name}"`,
      key: 'test',
      run: null,
      cohort: null,
      values: {},
      url: `${this.baseUrl()}/alerts`,
      fired_at: new Date(now).toISOString(),
    };
    const items = this.deliveries(rule, payload, now).filter((d) => !webhookId || d.webhook_id === webhookId);
    await Promise.all([
      this.store.insertFiring({
        firing_id: payload.id, rule_id: rule.id, rule_name: rule.name, kind: rule.kind, severity: rule.severity, status: 'test', key: 'test',
        project: '', run_id: '', summary: payload.summary, payload: JSON.stringify(payload), fired_at: now,
      }),
      this.worker.submit(items),
    ]);
    return items.map((i) => i.delivery_id);
  }

  private deliveries(rule: AlertRule, payload: AlertPayload, now: number): OutboxItem[] {
    return rule.webhooks.map((w) => ({
      delivery_id: randomUUID(),
      firing_id: payload.id,
      rule_id: rule.id,
      webhook_id: w.id,
      url: w.url,
      format: w.format,
      body: renderBody(payload, w.format),
      state: 'pending',
      attempts: 0,
      next_attempt_at: now,
      last_error: '',
      created_at: now,
    }));
  }

  private baseUrl(): string {
    const c = this.opts.config;
    return (c.alerts.publicUrl ?? `http://${c.host.includes(':') ? `[${c.host}]` : c.host}:${c.port}`).replace(/\/+$/, '');
  }

  private linkFor(parts: FiringParts): string {
    if (parts.run) return `${this.baseUrl()}/runs/${encodeURIComponent(parts.run.run_id)}?project=${encodeURIComponent(parts.run.project)}`;
    const q = new URLSearchParams();
    const f = (parts.cohort?.filters ?? {}) as Partial<RuleFilters>;
    if (f.project?.[0]) q.set('project', f.project[0]);
    if (f.model?.[0]) q.set('model', f.model[0]);
    if (f.agent?.[0]) q.set('agent', f.agent[0]);
    if (f.category?.[0]) q.set('task_category', f.category[0]);
    const g = /^([a-z_]+)=(.*)$/.exec(parts.key);
    if (g && ['project', 'model', 'agent', 'agent_version', 'task_category', 'environment'].includes(g[1])) q.set(g[1], g[2]);
    const s = q.toString();
    return `${this.baseUrl()}/runs${s ? `?${s}` : ''}`;
  }

  private track(p: Promise<unknown>): void {
    const tracked = p.catch((err) => this.opts.onError('alert firing failed', err)).finally(() => this.pendingWork.delete(tracked));
    this.pendingWork.add(tracked);
  }
}

function runKey(project: string, runId: string): string {
  return `run:${project}/${runId}`;
}

function runOf(r: RunAttributes): NonNullable<AlertPayload['run']> {
  return { project: r.project, run_id: r.run_id, model: r.model || undefined, agent: r.agent || undefined, task_category: r.task_category || undefined };
}

function stepRange(loop: Loop): NonNullable<AlertPayload['loop']>['steps'] {
  const out = [];
  for (let n = loop.first_step; n <= Math.min(loop.last_step, loop.first_step + MAX_LOOP_STEPS - 1); n++) out.push({ step: n, action: '' });
  return out;
}

function cohortOf(f: RuleFilters, key: string, from: number, to: number): NonNullable<AlertPayload['cohort']> {
  return { filters: f as unknown as Record<string, unknown>, group: key === '*' ? null : key, from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

function projectOf(f: RuleFilters): string {
  return f.project.length === 1 ? f.project[0] : '';
}

function emptyMetrics(): RunMetrics {
  return { runs: 0, ended: 0, successes: 0 } as RunMetrics;
}

function cut(s: string): string {
  return s.length > TEXT ? `${s.slice(0, TEXT)}…` : s;
}

function round(v: number | null | undefined): number | null {
  if (v === null || v === undefined || !Number.isFinite(v)) return null;
  return Math.round(v * 10_000) / 10_000;
}

function fmt(v: number | null): string {
  return v === null ? 'unknown' : String(round(v));
}

function pct(v: number | null): string {
  return v === null ? 'unknown' : `${(v * 100).toFixed(1)}%`;
}

function duration(s: number): string {
  if (s % 86_400 === 0) return s === 86_400 ? 'day' : `${s / 86_400} days`;
  if (s % 3600 === 0) return s === 3600 ? 'hour' : `${s / 3600} hours`;
  return s % 60 === 0 ? `${s / 60} min` : `${s} s`;
}

type LoopStep = NonNullable<AlertPayload['loop']>['steps'][number];

/** The last `perRun` steps of the `maxRuns` most recently active runs, texts cut short. Bounded. */
class RecentSteps {
  private readonly runs = new Map<string, LoopStep[]>();
  constructor(
    private readonly maxRuns: number,
    private readonly perRun: number,
  ) {}

  addStep(project: string, runId: string, step: number, action: string, observation: string, error: string): void {
    const list = this.touch(`${project}\u0000${runId}`);
    const existing = list.find((s) => s.step === step);
    const entry: LoopStep = existing ?? { step, action: '' };
    if (action) entry.action = cut(action);
    if (observation) entry.observation = cut(observation);
    if (error) entry.error = cut(error);
    if (!existing) {
      list.push(entry);
      list.sort((a, b) => a.step - b.step);
      if (list.length > this.perRun) list.shift();
    }
  }

  /** A tool call fills in the action and observation of its step when the step has none. */
  addCall(project: string, runId: string, step: number, call: string, output: string): void {
    const list = this.runs.get(`${project}\u0000${runId}`);
    const entry = list?.find((s) => s.step === step);
    if (!entry) return this.addStep(project, runId, step, call, output, '');
    if (!entry.action) entry.action = cut(call);
    if (!entry.observation && output) entry.observation = cut(output);
  }

  /** Steps first..last when all of them are held, else null. */
  range(project: string, runId: string, first: number, last: number): LoopStep[] | null {
    const list = this.runs.get(`${project}\u0000${runId}`);
    if (!list) return null;
    const out = list.filter((s) => s.step >= first && s.step <= last).map((s) => ({ ...s }));
    return out.length === last - first + 1 ? out : null;
  }

  private touch(key: string): LoopStep[] {
    let list = this.runs.get(key);
    if (list) this.runs.delete(key);
    else {
      list = [];
      while (this.runs.size >= this.maxRuns) this.runs.delete(this.runs.keys().next().value as string);
    }
    this.runs.set(key, list);
    return list;
  }
}
