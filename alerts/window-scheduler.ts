// Window rules (metric_threshold, completion_rate_drop, cost_spike, error_signature), evaluated on a schedule:
// each cohort seen in the window, and each still firing, is judged and fires or resolves.
import type { Observation } from '../analytics/alerts/firing-decisions.js';
import { evaluateCompletionDrop, evaluateSignature, evaluateThreshold } from '../analytics/alerts/window-evaluation.js';
import { WINDOW_KINDS, type AlertRule } from '../schemas/alert-rules.js';
import type { Storage } from '../storage/gateway.js';
import { getCostSpikes } from '../storage/queries/cost-spikes-queries.js';
import { getErrors } from '../storage/queries/errors-queries.js';
import { cohortOf, duration, emptyMetrics, fmt, pct, projectOf, round, runKey } from './alert-format.js';
import type { FiringClaims } from './firing-claims.js';
import type { FiringEmitter, FiringParts } from './firing-emitter.js';
import type { RuleCache } from './rule-cache.js';
import { ruleRunFilters, windowMetrics } from './window-metrics.js';

/** Signatures of a window an error_signature rule judges at most (those in most runs). */
const SIGNATURES_JUDGED = 200;

export interface WindowSchedulerDeps {
  storage: Storage;
  rules: RuleCache;
  claims: FiringClaims;
  emitter: FiringEmitter;
  intervalMs: number;
  /** The default robust z of cost_spike rules that set none. */
  costSpikeZ: number;
  onError: (msg: string, err: unknown) => void;
  clock: () => number;
  /** Whether this process leads (checked before each rule; absent: always). */
  leading?: () => boolean;
}

export class WindowScheduler {
  private timer: NodeJS.Timeout | null = null;
  private evaluating: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly d: WindowSchedulerDeps) {}

  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => void this.evaluate().catch((err) => this.d.onError('alert evaluation failed', err)), this.d.intervalMs);
    this.timer.unref();
  }

  /** Stops the schedule (this process no longer leads); start() resumes it. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.evaluating?.catch(() => {});
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.stop();
  }

  /** Evaluates every enabled window rule once now (also runs on the schedule). */
  evaluate(): Promise<void> {
    if (this.evaluating) return this.evaluating;
    this.evaluating = (async () => {
      for (const rule of this.d.rules.list().filter((r) => r.enabled && WINDOW_KINDS.includes(r.kind))) {
        // Checked before each rule: a process that lost the lead stops at once.
        if (this.closed || !(this.d.leading?.() ?? true)) break;
        try {
          await this.evaluateRule(rule);
        } catch (err) {
          this.d.onError(`evaluating alert rule ${rule.name} failed`, err);
        }
      }
    })().finally(() => {
      this.evaluating = null;
    });
    return this.evaluating;
  }

  private async evaluateRule(rule: AlertRule): Promise<void> {
    const now = this.d.clock();
    const storage = this.d.storage;
    if (rule.kind === 'metric_threshold') {
      const p = rule.params;
      const from = now - p.window_s * 1000;
      const groups = await windowMetrics(storage, ruleRunFilters(rule.filters, from, now), p.group_by);
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
        windowMetrics(storage, ruleRunFilters(rule.filters, from, now), p.group_by),
        windowMetrics(storage, ruleRunFilters(rule.filters, baseFrom, from), p.group_by),
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
    } else if (rule.kind === 'error_signature') {
      await this.evaluateSignatures(rule, now);
    } else if (rule.kind === 'cost_spike') {
      const p = rule.params;
      const from = now - p.window_s * 1000;
      const report = await getCostSpikes(
        storage,
        ruleRunFilters(rule.filters, from, now),
        { zThreshold: p.z ?? this.d.costSpikeZ, minCohortRuns: p.min_cohort_runs },
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

  /** error_signature: each signature of the window, new or grown over its baseline. */
  private async evaluateSignatures(rule: Extract<AlertRule, { kind: 'error_signature' }>, now: number): Promise<void> {
    const p = rule.params;
    const from = now - p.window_s * 1000;
    const window = await getErrors(this.d.storage, ruleRunFilters(rule.filters, from, now), { limit: SIGNATURES_JUDGED, now });
    const known = window.items.filter((s) => !s.new_in_window).map((s) => s.signature);
    const baseline = known.length
      ? await getErrors(this.d.storage, ruleRunFilters(rule.filters, from - p.baseline_s * 1000, from), { limit: SIGNATURES_JUDGED, now: from, signatures: known })
      : { items: [] };
    const before = new Map(baseline.items.map((s) => [s.signature, s.occurrences]));
    for (const s of window.items) {
      const key = `signature=${s.signature}`;
      const v = evaluateSignature(s, before.get(s.signature) ?? 0, p);
      await this.judge(rule, key, v.observation, {
        project: projectOf(rule.filters),
        run_id: '',
        key,
        summary:
          v.reason === 'new'
            ? `new error in ${s.runs} runs over the last ${duration(p.window_s)}: ${s.template}`
            : `error ${v.factor === null ? 'back' : `at ${v.factor.toFixed(1)}× its rate`} in ${s.runs} runs over the last ${duration(p.window_s)}: ${s.template}`,
        run: null,
        cohort: cohortOf(rule.filters, key, from, now),
        values: {
          signature: s.signature,
          template: s.template,
          reason: v.reason ?? '',
          runs: s.runs,
          occurrences: s.occurrences,
          baseline_occurrences: before.get(s.signature) ?? 0,
          factor: v.factor === null ? null : round(v.factor),
          first_seen: s.first_seen ?? '',
          window_s: p.window_s,
        },
      });
    }
  }

  /** Cohorts seen now, plus those firing (so a cohort that vanished from the window can resolve). */
  private keysToJudge(rule: AlertRule, groups: Map<string, unknown>): string[] {
    const keys = new Set(groups.keys());
    if (!rule.params || !('group_by' in rule.params) || !rule.params.group_by) keys.add('*');
    for (const k of this.d.claims.firingKeys(rule.id)) keys.add(k);
    return [...keys];
  }

  private async judge(rule: AlertRule, key: string, observation: Observation, parts: FiringParts): Promise<void> {
    if (!(this.d.leading?.() ?? true)) return;
    const action = this.d.claims.claim(rule, key, observation);
    if (action) await this.d.emitter.emit(rule, key, action, parts);
  }
}
