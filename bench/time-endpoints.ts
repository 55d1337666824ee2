// Times GET endpoints of a running server: one warm-up, then `iterations` timed requests each;
// prints median and p95 against each endpoint's target and returns how many missed it.
// `before`, when given, runs (untimed) before every request, e.g. a write that makes caches stale.
// `figures`, when given, receives each endpoint's median and p95 (by name); `baseline`, when
// given, adds a column: this p95 ÷ the baseline's (e.g. the same endpoints at a tenth of the data).
import { quantile } from '../analytics/robust-stats.js';

/** One endpoint's timing, in ms. */
export interface EndpointFigures {
  median: number;
  p95: number;
}

/** [name, path, target p95 in ms]. */
export type TimedEndpoint = readonly [string, string, number];

export async function timeEndpoints(
  baseUrl: string,
  endpoints: readonly TimedEndpoint[],
  iterations: number,
  before?: () => Promise<void>,
  figures?: Record<string, EndpointFigures>,
  baseline?: Readonly<Record<string, EndpointFigures>>,
): Promise<number> {
  console.log(`\n${'endpoint'.padEnd(30)} ${'median ms'.padStart(10)} ${'p95 ms'.padStart(8)}  target${baseline ? '     p95 ÷ baseline' : ''}`);
  let missed = 0;
  for (const [name, path, target] of endpoints) {
    const once = async () => {
      await before?.();
      const t = performance.now();
      const res = await fetch(baseUrl + path);
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${path} answered ${res.status}`);
      return performance.now() - t;
    };
    await once();
    const times: number[] = [];
    for (let i = 0; i < iterations; i++) times.push(await once());
    const p95 = quantile(times, 0.95);
    const median = quantile(times, 0.5);
    if (p95 > target) missed++;
    if (figures) figures[name] = { median, p95 };
    const base = baseline?.[name];
    const ratio = baseline ? `  ${base ? (p95 / base.p95).toFixed(1).padStart(8) : '       -'}` : '';
    console.log(`${name.padEnd(30)} ${median.toFixed(0).padStart(10)} ${p95.toFixed(0).padStart(8)}  < ${String(target).padEnd(5)}${ratio}${p95 > target ? '  MISSED' : ''}`);
  }
  console.log(`\n${missed === 0 ? 'every endpoint within its target' : `${missed} endpoint(s) over target`}`);
  return missed;
}
