// Times GET endpoints of a running server: one warm-up, then `iterations` timed requests each;
// prints median and p95 against each endpoint's target and returns how many missed it.
// `before`, when given, runs (untimed) before every request, e.g. a write that makes caches stale.
import { quantile } from '../analytics/robust-stats.js';

/** [name, path, target p95 in ms]. */
export type TimedEndpoint = readonly [string, string, number];

export async function timeEndpoints(
  baseUrl: string,
  endpoints: readonly TimedEndpoint[],
  iterations: number,
  before?: () => Promise<void>,
): Promise<number> {
  console.log(`\n${'endpoint'.padEnd(30)} ${'median ms'.padStart(10)} ${'p95 ms'.padStart(8)}  target`);
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
    if (p95 > target) missed++;
    console.log(`${name.padEnd(30)} ${quantile(times, 0.5).toFixed(0).padStart(10)} ${p95.toFixed(0).padStart(8)}  < ${target}${p95 > target ? '  MISSED' : ''}`);
  }
  console.log(`\n${missed === 0 ? 'every endpoint within its target' : `${missed} endpoint(s) over target`}`);
  return missed;
}
