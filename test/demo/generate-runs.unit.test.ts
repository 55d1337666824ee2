// generateDemoRuns: valid events, determinism, time window, step counts, variety, laziness.
import { describe, expect, it } from 'vitest';
import { eventSchema } from '../../schemas/events.js';
import { generateDemoRunDetails, generateDemoRuns, type DemoEvent } from '../../sources/demo/index.js';
import { prices, view } from './reference-analysis.js';

const START = Date.UTC(2026, 10, 1);
const WEEK = 7 * 86_400_000;
const opts = { seed: 42, runs: 500, startMs: START, spanMs: WEEK };
const runs = [...generateDemoRunDetails(opts)];
const all = runs.flatMap((r) => r.events) as Array<Record<string, any>>;

describe('demo runs: contract', { timeout: 120_000 }, () => {
  it('every event validates against eventSchema', () => {
    for (const e of all) {
      const r = eventSchema.safeParse(e);
      if (!r.success) throw new Error(`${JSON.stringify(e).slice(0, 300)}: ${r.error.message}`);
    }
    expect(all.length).toBeGreaterThan(10_000);
  });

  it('run ids and event ids are unique; events carry v1, the project and ISO timestamps', () => {
    expect(new Set(runs.map((r) => r.truth.runId)).size).toBe(500);
    expect(new Set(all.map((e) => e.event_id)).size).toBe(all.length);
    for (const e of all) {
      expect(e.v).toBe(1);
      expect(e.project).toBe('demo');
      expect(e.ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    const other = generateDemoRuns({ ...opts, runs: 3, project: 'acme' }).next().value!;
    expect(other.every((e) => e.project === 'acme')).toBe(true);
  });

  it('each run is well formed: one run_start first, steps 0..n-1, tool calls on existing steps, at most one run_end', () => {
    for (const { events, truth } of runs) {
      const v = view(events);
      expect(events[0].type).toBe('run_start');
      expect(v.steps.map((s) => s.step)).toEqual(v.steps.map((_, i) => i));
      expect(v.steps.length).toBe(truth.steps);
      const stepSet = new Set(v.steps.map((s) => s.step));
      for (const c of v.calls) expect(stepSet.has(c.step)).toBe(true);
      expect(events.filter((e) => e.type === 'run_end').length).toBe(truth.outcome === 'abandoned' ? 0 : 1);
      if (truth.outcome === 'abandoned') expect(v.scores).toEqual([]);
      for (const e of events) expect(e.run_id).toBe(truth.runId);
      const ts = events.map((e) => Date.parse(e.ts as string));
      expect(ts).toEqual([...ts].sort((a, b) => a - b));
    }
  });
});

describe('demo runs: determinism', { timeout: 120_000 }, () => {
  it('the same seed gives byte-identical output; another seed does not', () => {
    const text = (seed: number) => [...generateDemoRuns({ ...opts, seed, runs: 200 })].map((r) => JSON.stringify(r)).join('\n');
    const a = text(42);
    expect(text(42)).toBe(a);
    expect(text(43)).not.toBe(a);
  });

  it('the first runs do not depend on how many runs follow, apart from placement in time', () => {
    const strip = (events: DemoEvent[]) => events.map(({ ts: _ts, ...rest }) => rest);
    const few = [...generateDemoRunDetails({ ...opts, runs: 500 })].slice(0, 5);
    const again = runs.slice(0, 5);
    expect(few.map((r) => strip(r.events))).toEqual(again.map((r) => strip(r.events)));
  });
});

describe('demo runs: time window', { timeout: 120_000 }, () => {
  it('every ts falls in [startMs, startMs + spanMs], spread over the window', () => {
    const ts = all.map((e) => Date.parse(e.ts as string));
    expect(Math.min(...ts)).toBeGreaterThanOrEqual(START);
    expect(Math.max(...ts)).toBeLessThanOrEqual(START + WEEK);
    const days = new Set(ts.map((t) => Math.floor((t - START) / 86_400_000)));
    expect(days.size).toBe(7);
  });

  it('squeezes runs into a window shorter than they are', () => {
    const span = 10 * 60_000;
    for (const events of generateDemoRuns({ seed: 5, runs: 60, startMs: START, spanMs: span })) {
      for (const e of events) {
        const t = Date.parse(e.ts as string);
        expect(t).toBeGreaterThanOrEqual(START);
        expect(t).toBeLessThanOrEqual(START + span);
      }
    }
  });

  it('rejects bad options with a clear error', () => {
    expect(() => generateDemoRuns({ ...opts, runs: -1 }).next()).toThrow(/runs/);
    expect(() => generateDemoRuns({ ...opts, seed: 1.5 }).next()).toThrow(/seed/);
    expect(() => generateDemoRuns({ ...opts, spanMs: -5 }).next()).toThrow(/spanMs/);
  });
});

describe('demo runs: shape of the traffic', { timeout: 120_000 }, () => {
  it('runs have 1 to 300 steps, most of them 5 to 60', () => {
    const big = [...generateDemoRunDetails({ ...opts, seed: 7, runs: 2000 })].map((r) => r.truth.steps);
    for (const n of big) expect(n >= 1 && n <= 300).toBe(true);
    expect(Math.min(...big)).toBe(1);
    expect(Math.max(...big)).toBeGreaterThanOrEqual(150);
    expect(big.filter((n) => n >= 5 && n <= 60).length / big.length).toBeGreaterThan(0.75);
  });

  it('has several agents with versions, models of the price table, categories, environments and tags', () => {
    const starts = all.filter((e) => e.type === 'run_start');
    const agents = new Set(starts.map((s) => `${s.agent.name}@${s.agent.version}`));
    expect(new Set(starts.map((s) => s.agent.name))).toEqual(new Set(['repo-fixer', 'web-navigator', 'data-analyst', 'customer-support']));
    expect(agents.size).toBe(8);
    const models = new Set(starts.map((s) => s.model as string));
    expect(models.size).toBeGreaterThanOrEqual(7);
    for (const m of models) expect(prices.find(m), m).not.toBeNull();
    expect(new Set(starts.map((s) => s.task.category)).size).toBeGreaterThanOrEqual(12);
    expect(new Set(starts.map((s) => s.environment)).size).toBeGreaterThanOrEqual(6);
    expect(starts.every((s) => typeof s.tags.dataset === 'string' && typeof s.tags.source === 'string')).toBe(true);
    expect(starts.some((s) => s.parent_run_id)).toBe(true);
    expect(starts.some((s) => s.budget_usd !== undefined) && starts.some((s) => s.budget_usd === undefined)).toBe(true);
  });

  it('gives a share of runs RL fields, with several samples per group sharing model and task', () => {
    const starts = all.filter((e) => e.type === 'run_start');
    const rl = starts.filter((s) => s.rl);
    expect(rl.length / starts.length).toBeGreaterThan(0.1);
    expect(rl.length / starts.length).toBeLessThan(0.5);
    const groups = new Map<string, typeof rl>();
    for (const s of rl) groups.set(s.rl.group_id, [...(groups.get(s.rl.group_id) ?? []), s]);
    expect(groups.size).toBeGreaterThan(5);
    for (const members of groups.values()) {
      expect(members.length).toBeGreaterThanOrEqual(2);
      expect(new Set(members.map((m) => m.rl.sample_index)).size).toBe(members.length);
      expect(new Set(members.map((m) => `${m.model}|${m.task.id}|${m.rl.policy_version}|${m.rl.training_step}`)).size).toBe(1);
    }
  });

  it('has realistic actions and tool calls with JSON arguments across domains', () => {
    const calls = all.filter((e) => e.type === 'tool_call');
    const tools = new Set(calls.map((c) => c.tool));
    for (const t of ['bash', 'edit_file', 'view_file', 'run_tests', 'browser.click', 'browser.goto', 'sql.query', 'python.exec', 'orders.get', 'kb.search']) expect(tools.has(t), t).toBe(true);
    expect(calls.every((c) => c.arguments && typeof c.arguments === 'object' && typeof c.call_id === 'string')).toBe(true);
    const bash = calls.filter((c) => c.tool === 'bash').map((c) => c.arguments.cmd as string);
    expect(bash.some((c) => c.startsWith('grep -rn'))).toBe(true);
    expect(calls.filter((c) => c.tool === 'sql.query').some((c) => /^SELECT .* FROM /.test(c.arguments.sql))).toBe(true);
  });

  it('has token counts that grow with the context, cache reads, latency, and cost_usd on some steps only', () => {
    const steps = all.filter((e) => e.type === 'step');
    expect(steps.every((s) => s.input_tokens > 0 && s.latency_ms >= 0)).toBe(true);
    expect(steps.filter((s) => (s.cache_read_tokens ?? 0) > 0).length / steps.length).toBeGreaterThan(0.3);
    expect(steps.some((s) => s.cache_write_tokens > 0) && steps.some((s) => s.reasoning_tokens > 0)).toBe(true);
    const withCost = steps.filter((s) => s.cost_usd !== undefined).length;
    expect(withCost).toBeGreaterThan(0);
    expect(withCost).toBeLessThan(steps.length / 2);
    let grew = 0;
    let long = 0;
    for (const { events } of runs) {
      const s = view(events).steps;
      if (s.length < 6) continue;
      long++;
      if (s[4].input_tokens > s[0].input_tokens && s[2].input_tokens > s[0].input_tokens) grew++;
    }
    expect(grew / long).toBeGreaterThan(0.9);
  });

  it('has tool errors recovered by the same tool within 3 steps, and errors that are not', () => {
    let recovered = 0;
    let unrecovered = 0;
    for (const { events } of runs) {
      const calls = view(events).calls;
      calls.forEach((c, i) => {
        if (c.status !== 'error') return;
        const ok = calls.slice(i + 1).some((d) => d.tool === c.tool && d.status === 'ok' && d.step - c.step <= 3);
        if (ok) recovered++;
        else unrecovered++;
      });
    }
    expect(recovered).toBeGreaterThan(50);
    expect(unrecovered).toBeGreaterThan(50);
  });
});

describe('demo runs: memory', { timeout: 120_000 }, () => {
  it('is lazy: asking for a huge number of runs yields the first ones at once', () => {
    const it = generateDemoRuns({ seed: 1, runs: Number.MAX_SAFE_INTEGER, startMs: START, spanMs: WEEK });
    const first = [it.next().value, it.next().value, it.next().value];
    expect(first.every((r) => Array.isArray(r) && r.length > 0)).toBe(true);
  });

  it('hands out each run as soon as it is built, holding nothing of earlier runs', () => {
    const it = generateDemoRunDetails({ seed: 3, runs: 1_000_000, startMs: START, spanMs: WEEK });
    const first = it.next().value!;
    const copy = JSON.stringify(first.events);
    first.events.length = 0; // the caller owns what it got: later runs do not read it
    for (let i = 0; i < 50; i++) expect(it.next().value!.events.length).toBeGreaterThan(0);
    const again = generateDemoRunDetails({ seed: 3, runs: 1_000_000, startMs: START, spanMs: WEEK }).next().value!;
    expect(JSON.stringify(again.events)).toBe(copy);
  });
});

describe('a generation resumed at a run', () => {
  it('gives the runs of the whole generation from that run on, byte for byte', () => {
    const opts = { seed: 5, runs: 40, startMs: Date.UTC(2026, 0, 1), spanMs: 86_400_000 };
    const whole = [...generateDemoRuns(opts)];
    expect([...generateDemoRuns({ ...opts, from: 27 })]).toEqual(whole.slice(27));
    expect([...generateDemoRuns({ ...opts, from: 40 })]).toEqual([]);
    expect(() => [...generateDemoRuns({ ...opts, from: -1 })]).toThrow(RangeError);
  });
});
