// `trajscope gate`: compares a candidate cohort with a baseline cohort (each a set of run
// filters) and exits non-zero when the candidate regresses: its completion rate drops by more
// than the floor, or its cost per success rises beyond the limit. Against a running server
// (--url) or the data folder. Prints a short table.
import type { CompareReport } from '../schemas/api.js';
import type { Config } from './config.js';

export interface GateOptions {
  /** key=value filters of each cohort (e.g. agent_version=2.0); `shared` apply to both. */
  baseline: string[];
  candidate: string[];
  shared: string[];
  url?: string;
  maxDrop?: number;
  maxCostIncrease?: number;
  /** Fewest ended runs each cohort needs for a verdict. */
  minRuns: number;
}

export const GATE_PASS = 0;
export const GATE_REGRESSION = 1;
export const GATE_CANNOT_JUDGE = 2;

type Pairs = Array<[string, string]>;

export function parsePairs(specs: string[], what: string): Pairs {
  return specs.map((s) => {
    const i = s.indexOf('=');
    if (i <= 0) throw new Error(`${what}: expected key=value (got ${JSON.stringify(s)})`);
    return [s.slice(0, i).trim(), s.slice(i + 1).trim()];
  });
}

export async function runGate(config: Config, o: GateOptions, write: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const a = parsePairs(o.baseline, '--baseline');
  const b = parsePairs(o.candidate, '--candidate');
  const shared = parsePairs(o.shared, '--filter');
  if (a.length === 0 && b.length === 0) throw new Error('give the cohorts: --baseline key=value and --candidate key=value');
  const report = o.url ? await compareOverHttp(o.url, shared, a, b) : await compareLocally(config, shared, a, b);
  const maxDrop = o.maxDrop ?? config.gate.maxCompletionDrop;
  const maxCost = o.maxCostIncrease ?? config.gate.maxCostIncrease;
  const verdict = judge(report, { maxDrop, maxCostIncrease: maxCost, minRuns: o.minRuns });
  write(formatTable(report, a, b));
  write(`\n${verdict.code === GATE_PASS ? 'PASS' : verdict.code === GATE_REGRESSION ? 'FAIL' : 'CANNOT JUDGE'}: ${verdict.reasons.join('; ')}\n`);
  return verdict.code;
}

export interface GateLimits {
  maxDrop: number;
  maxCostIncrease: number;
  minRuns: number;
}

/** The gate's decision over a comparison (pure). */
export function judge(r: CompareReport, l: GateLimits): { code: number; reasons: string[] } {
  if (r.a.ended < l.minRuns || r.b.ended < l.minRuns) {
    return { code: GATE_CANNOT_JUDGE, reasons: [`each cohort needs at least ${l.minRuns} ended runs (baseline ${r.a.ended}, candidate ${r.b.ended})`] };
  }
  const reasons: string[] = [];
  const drop = (r.a.completion_rate ?? 0) - (r.b.completion_rate ?? 0);
  if (drop > l.maxDrop + 1e-12) {
    reasons.push(`completion rate dropped ${pts(drop)} points (limit ${pts(l.maxDrop)}; p=${r.completion_test.p_value.toFixed(4)})`);
  }
  const ca = r.a.cost_per_success;
  const cb = r.b.cost_per_success;
  if (ca !== null && ca > 0 && cb !== null && (cb - ca) / ca > l.maxCostIncrease + 1e-12) {
    reasons.push(`cost per success rose ${pct((cb - ca) / ca)} (limit ${pct(l.maxCostIncrease)})`);
  } else if (ca !== null && cb === null && r.b.ended > 0) {
    reasons.push('the candidate has no success');
  }
  if (reasons.length) return { code: GATE_REGRESSION, reasons };
  return {
    code: GATE_PASS,
    reasons: [`completion rate ${drop > 0 ? `-${pts(drop)}` : `+${pts(-drop)}`} points, cost per success within +${pct(l.maxCostIncrease)}`],
  };
}

const pts = (x: number) => (x * 100).toFixed(1);
const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
const usd = (x: number | null) => (x === null ? '—' : `$${x < 1 ? x.toFixed(4) : x.toFixed(2)}`);
const rate = (x: number | null, ci?: { low: number; high: number } | null) =>
  x === null ? '—' : `${pts(x)}%${ci ? ` [${pts(ci.low)}–${pts(ci.high)}]` : ''}`;
const num = (x: number | null) => (x === null ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(1));

export function formatTable(r: CompareReport, a: Pairs, b: Pairs): string {
  const rows: string[][] = [
    ['', `baseline (${a.map(([k, v]) => `${k}=${v}`).join(' ') || 'all'})`, `candidate (${b.map(([k, v]) => `${k}=${v}`).join(' ') || 'all'})`, 'delta'],
    ['runs (ended)', `${r.a.runs} (${r.a.ended})`, `${r.b.runs} (${r.b.ended})`, ''],
    ['completion rate', rate(r.a.completion_rate, r.a.completion_rate_ci), rate(r.b.completion_rate, r.b.completion_rate_ci),
      r.completion_test.difference === null ? '—' : `${r.completion_test.difference >= 0 ? '+' : ''}${pts(r.completion_test.difference)} pts (p=${r.completion_test.p_value.toFixed(3)})`],
    ['cost per success', usd(r.a.cost_per_success), usd(r.b.cost_per_success),
      r.a.cost_per_success && r.b.cost_per_success !== null ? pct(r.b.cost_per_success / r.a.cost_per_success - 1) : '—'],
    ['cost per run', usd(r.a.cost_per_run), usd(r.b.cost_per_run), ''],
    ['steps p50 / p90', `${num(r.a.steps_p50)} / ${num(r.a.steps_p90)}`, `${num(r.b.steps_p50)} / ${num(r.b.steps_p90)}`, ''],
    ['tool-call success', rate(r.a.tool_success_rate), rate(r.b.tool_success_rate), ''],
  ];
  for (const m of r.failure_modes.slice(0, 3)) {
    if (m.shift === null || m.shift === 0) continue;
    rows.push([`failures: ${m.mode}`, rate(m.a_share), rate(m.b_share), `${m.shift >= 0 ? '+' : ''}${pts(m.shift)} pts`]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) => row.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n') + '\n';
}

async function compareOverHttp(url: string, shared: Pairs, a: Pairs, b: Pairs): Promise<CompareReport> {
  const q = new URLSearchParams();
  for (const [k, v] of shared) q.append(k, v);
  for (const [k, v] of a) q.append(`a[${k}]`, v);
  for (const [k, v] of b) q.append(`b[${k}]`, v);
  const endpoint = new URL(`/api/v1/compare?${q}`, url);
  const res = await fetch(endpoint);
  const body = (await res.json()) as CompareReport & { error?: { message: string } };
  if (!res.ok) throw new Error(`${endpoint.origin} answered ${res.status}: ${body.error?.message ?? ''}`);
  return body;
}

async function compareLocally(config: Config, shared: Pairs, a: Pairs, b: Pairs): Promise<CompareReport> {
  const { openStorage } = await import('../storage/gateway.js');
  const { migrate } = await import('../storage/migrate.js');
  const { parseQuery, runFiltersSchema } = await import('../server/runs/run-filters.js');
  const { getCompare } = await import('../server/compare/compare-queries.js');
  const toQuery = (pairs: Pairs) => {
    const q: Record<string, string | string[]> = {};
    for (const [k, v] of [...shared, ...pairs]) {
      const prev = q[k];
      q[k] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), v];
    }
    return q;
  };
  const storage = await openStorage({ ...config.clickhouse, dataDir: config.dataDir });
  try {
    await migrate(storage);
    return await getCompare(storage, parseQuery(runFiltersSchema, toQuery(a)), parseQuery(runFiltersSchema, toQuery(b)));
  } finally {
    await storage.close();
  }
}
