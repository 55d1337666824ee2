// Benchmark: the dashboard's weight and speed in a real browser.
//   npx tsx bench/web.ts [--runs 5000] [--iterations 5] [--huge-steps 100000] [--data-dir DIR] [--keep] [--no-build] [--waterfall]
// 1. Builds the dashboard (vite, production) and prints the gzip size of the initial JavaScript
//    (the entry script and the app chunk index.html preloads: everything the first view runs)
//    and of all JavaScript (pages other than overview/runs/run load on demand).
// 2. Fills a data folder with N seeded demo runs over the last 7 days plus a run of 100 steps and
//    a huge run of --huge-steps steps with two tool calls each (100,000 steps and 200,000 calls
//    by default) through the ingest path (or reuses DIR), and prints how long the huge run took to
//    store and to analyse, and the process's resident memory before it and at its peak while it
//    was analysed (sampled every 20 ms). Then starts the server in this process (the real
//    one: static files as served in production, precompressed and cached), and in headless
//    Chromium (/usr/bin/chromium; a fresh browser context per load, so nothing is cached, no
//    throttling) measures from navigation start, on the page's own clock (checked every frame):
//      - overview: first chart: the first chart of the overview (runs and completion rate, the
//        default range of 7 days) has drawn its bars. Everything a first visit does is inside:
//        HTML, scripts, the API requests, React and recharts drawing;
//      - overview: every chart (no target): the other two time charts and the failure-mode chart
//        have drawn too. The overview draws its charts one at a time, a frame apart, and asks
//        for the failure modes after the first chart's data, so this is the whole page;
//      - 100-step run and huge run: usable: the run's header, its step chart's bars and the
//        first steps' lines are on screen (the list scrolls and fetches more from there), loaded
//        in turn, and the ratio of their medians;
//      - huge run at ?step=87654 (or 7/8 of its length): that step's line is on screen.
//    Each measure: one warm-up load (server caches, JIT), then --iterations loads; prints the
//    median and max against the targets. --waterfall prints, for every load, the requests with
//    their start/end and server wait, paints, long tasks and when parts of the page appeared.
//    Never part of the tests. The machine's other load shows in the figures.
// Targets: initial JS < 300 KB gzip, first chart < 1.5 s, huge run usable within 2x of the
// 100-step one.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { loadConfig } from '../config/config.js';
import { generateDemoRuns } from '../sources/demo/index.js';
import { repoPath } from '../schemas/paths.js';
import { startServer } from '../runtime/start-server.js';
import { openServices } from '../runtime/services.js';
import { longRunEvents } from '../test/browser/long-run.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '5000' },
    iterations: { type: 'string', default: '5' },
    'data-dir': { type: 'string' },
    keep: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    waterfall: { type: 'boolean', default: false },
    'huge-steps': { type: 'string', default: '100000' },
  },
});
const RUNS = Number(args.runs);
const ITERATIONS = Number(args.iterations);
const HUGE_STEPS = Number(args['huge-steps']);
const SHORT_RUN = 'bench-run-100';
const HUGE_RUN = `bench-huge-run-${HUGE_STEPS}`;
/** The step a shared link opens the huge run at. */
const JUMP_STEP = HUGE_STEPS >= 100_000 ? 87_654 : Math.floor((HUGE_STEPS * 7) / 8);
const TARGETS = { initialKb: 300, firstChartMs: 1500, hugeRatio: 2 };

// ---- 1. bundle size ----
if (!args['no-build']) {
  const { build } = await import('vite');
  await build({ configFile: repoPath('vite.config.ts'), logLevel: 'warn' });
}
const web = repoPath('dist', 'web');
const html = readFileSync(join(web, 'index.html'), 'utf8');
// The entry script and the scripts index.html preloads (the app chunk: rel=preload as=script).
const initial = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="(?:modulepreload|preload)"[^>]*\shref)="([^"]+\.js)"/g)].map((m) => m[1]);
const gz = (file: string) => gzipSync(readFileSync(join(web, file))).length;
const initialGzip = initial.reduce((s, f) => s + gz(f), 0);
const allJs = readdirSync(join(web, 'assets')).filter((f) => f.endsWith('.js'));
const allGzip = allJs.reduce((s, f) => s + gz(join('assets', f)), 0);
const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
console.log(`initial JavaScript (${initial.length} file${initial.length === 1 ? '' : 's'}): ${kb(initialGzip)} gzip  (target < ${TARGETS.initialKb} KB)${initialGzip / 1024 > TARGETS.initialKb ? '  MISSED' : ''}`);
console.log(`all JavaScript (${allJs.length} files, pages load on demand): ${kb(allGzip)} gzip`);

// ---- 2. data and server ----
const dir = args['data-dir'] ?? mkdtempSync(join(tmpdir(), 'trajscope-bench-web-'));
const config = loadConfig({ TRAJSCOPE_DATA_DIR: dir, TRAJSCOPE_PORT: '0', TRAJSCOPE_HOST: '127.0.0.1', TRAJSCOPE_LOG_LEVEL: 'warn', TRAJSCOPE_BATCH_MAX_ROWS: '200000' });
const services = await openServices(config);
const runsStored = async () => Number((await services.storage.query<{ n: string }>('SELECT uniqExact(run_id) AS n FROM runs'))[0].n);
const send = async (events: unknown[]) => services.ingestor.ingest(events.map((value) => ({ ok: true as const, value })));
if ((await runsStored()) < RUNS + 2) {
  const t0 = performance.now();
  const spanMs = 7 * 86_400_000;
  let batch: unknown[] = [];
  for (const run of generateDemoRuns({ seed: 11, runs: RUNS, startMs: Date.now() - spanMs, spanMs })) {
    batch.push(...run);
    if (batch.length >= 20_000) {
      await send(batch);
      batch = [];
    }
  }
  batch.push(...longRunEvents(SHORT_RUN, 100, new Date(), 'default', 2));
  await send(batch);
  await services.writer.flush();
  await services.analyzer.drain();
  console.log(`data: ${RUNS} demo runs and a 100-step run ingested and analysed in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  // The huge run alone: its ingest, its analysis and the memory that took.
  const rss = () => process.memoryUsage().rss;
  const before = rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 20);
  const t1 = performance.now();
  const events = longRunEvents(HUGE_RUN, HUGE_STEPS, new Date(), 'default', 2);
  for (let i = 0; i < events.length; i += 20_000) await send(events.slice(i, i + 20_000));
  await services.writer.flush();
  const stored = performance.now();
  const beforeAnalysis = rss();
  peak = beforeAnalysis;
  await services.analyzer.drain();
  const analysed = performance.now();
  clearInterval(sampler);
  const mib = (b: number) => `${(b / 1048576).toFixed(0)} MiB`;
  const [a] = await services.storage.query<{ mode: string; loops: number }>(
    'SELECT failure_mode AS mode, loop_count AS loops FROM run_analysis FINAL WHERE run_id = {id:String}',
    { id: HUGE_RUN },
  );
  console.log(`huge run: ${HUGE_STEPS.toLocaleString('en-US')} steps and ${(2 * HUGE_STEPS).toLocaleString('en-US')} tool calls stored in ${((stored - t1) / 1000).toFixed(1)} s, analysed in ${((analysed - stored) / 1000).toFixed(1)} s (failure mode ${a?.mode || 'none'}, ${a?.loops ?? 0} loop(s))`);
  console.log(`process RSS: ${mib(before)} before the huge run, ${mib(beforeAnalysis)} once stored, peak ${mib(peak)} while analysed (+${mib(peak - beforeAnalysis)})`);
} else {
  await services.analyzer.drain();
  console.log(`data: reusing ${dir} (${await runsStored()} runs)`);
}
const server = await startServer(config, services);

// ---- 3. browser timings ----
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
/** --waterfall: elements whose first appearance is printed (React's first DOM, then the pages' parts). */
const MILESTONES = ['#root > *', '[data-testid="kpi-runs"]', '.charts', '.chart-card .recharts-surface', '.run-header', '.step-chart .recharts-surface', '.step-card'];
/** Loads `path` in a fresh context and returns ms from navigation start until every selector matches. */
async function timeTo(path: string, ready: string[]): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // The page records when all of `ready` first match (checked every frame), on its own clock.
  // A string, not a function: tsx would wrap a function's inner names in a helper the page lacks.
  await page.addInitScript(`(() => {
    const sels = ${JSON.stringify(ready)};
    window.__marks = {};
    window.__longTasks = [];
    try {
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: true });
    } catch (e) {}
    const check = () => {
      for (const m of ${JSON.stringify(MILESTONES)}) if (!(m in window.__marks) && document.querySelector(m)) window.__marks[m] = performance.now();
      if (sels.every((s) => document.querySelector(s))) window.__readyAt = performance.now();
      else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  })();`);
  await page.goto(`${server.url}${path}`);
  await page.waitForFunction(() => (window as unknown as { __readyAt?: number }).__readyAt !== undefined, undefined, { timeout: 30_000 });
  const ms = await page.evaluate(() => (window as unknown as { __readyAt: number }).__readyAt);
  if (args.waterfall) await printWaterfall(page, path, ms);
  await context.close();
  if (errors.length) throw new Error(`page errors on ${path}: ${errors.join('; ')}`);
  return ms;
}
/** --waterfall: where one load's time went (resource timing, long tasks, React's first DOM). */
async function printWaterfall(page: import('playwright-core').Page, path: string, readyMs: number): Promise<void> {
  const w = await page.evaluate(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const res = performance.getEntriesByType('resource').map((r) => ({ name: r.name, start: r.startTime, reqStart: r.requestStart, resStart: r.responseStart, end: r.responseEnd, size: r.transferSize }));
    const paint = performance.getEntriesByType('paint').map((p) => [p.name, p.startTime]);
    return { nav: { resStart: nav.responseStart, end: nav.responseEnd, domInteractive: nav.domInteractive, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd }, res, paint, marks: window.__marks, long: window.__longTasks };
  })()`) as {
    nav: Record<string, number>; res: Array<{ name: string; start: number; reqStart: number; resStart: number; end: number; size: number }>;
    paint: Array<[string, number]>; marks: Record<string, number>; long: Array<[number, number]>;
  };
  const f = (x: number) => x.toFixed(0).padStart(6);
  console.log(`\n--- waterfall of ${path} (ms from navigation start) ---`);
  console.log(`${f(w.nav.resStart)} ${f(w.nav.end)}  document (first byte, end); DOM interactive ${w.nav.domInteractive.toFixed(0)}, DOMContentLoaded ${w.nav.dcl.toFixed(0)}`);
  for (const r of w.res) {
    const u = new URL(r.name);
    console.log(`${f(r.start)} ${f(r.end)}  ${u.pathname}${u.search.length > 60 ? `${u.search.slice(0, 60)}…` : u.search}  (waiting ${(r.resStart - r.reqStart).toFixed(0)} ms, ${(r.size / 1024).toFixed(1)} KB)`);
  }
  for (const [name, t] of w.paint) console.log(`${f(t)}         ${name}`);
  for (const [sel, t] of Object.entries(w.marks)) console.log(`${f(t)}         first ${sel}`);
  for (const [t, d] of w.long) console.log(`${f(t)} ${f(t + d)}  long task (${d.toFixed(0)} ms)`);
  console.log(`${f(readyMs)}         ready`);
}
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor((s.length - 1) / 2)], max: s[s.length - 1] };
};
/** A run's page is usable: its header, its step chart's bars and the first steps' lines. */
const lineLoaded = (step: number) => `.compact-slot[data-step="${step}"] .compact-what:not(:has(.compact-placeholder))`;
const RUN_USABLE = ['.run-header', '.step-chart .recharts-bar-rectangle path', lineLoaded(0)];
const measures: Array<[string, string, string[], number | null]> = [
  // The first of the overview's charts (runs per bucket) has drawn its bars.
  ['overview: first chart', '/', ['.chart-card .recharts-bar-rectangle path'], TARGETS.firstChartMs],
  // No target; shown so the first-chart figure is not read as the whole page: the overview draws
  // its three time charts one at a time, and the failure modes come from a request made after
  // the first chart's data.
  ['overview: every chart', '/', ['.charts .chart-card:nth-child(3) .recharts-line-curve', '.charts-single .recharts-bar-rectangle path'], null],
];
console.log(`\n${'measure'.padEnd(30)} ${'median ms'.padStart(10)} ${'max ms'.padStart(8)}  target`);
let missed = initialGzip / 1024 > TARGETS.initialKb ? 1 : 0;
const row = (name: string, times: number[], target: string) => {
  const { median, max } = stats(times);
  console.log(`${name.padEnd(30)} ${median.toFixed(0).padStart(10)} ${max.toFixed(0).padStart(8)}  ${target}`);
  return median;
};
for (const [name, path, ready, target] of measures) {
  await timeTo(path, ready); // warm-up (server caches, JIT)
  const times: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) times.push(await timeTo(path, ready));
  const median = row(name, times, target === null ? '(none)' : `< ${target}`);
  if (target !== null && median > target) {
    missed++;
    console.log('  MISSED');
  }
}
// The 100-step and the huge run, loaded in turn (the machine's load falls on both alike).
const short: number[] = [];
const huge: number[] = [];
const jump: number[] = [];
const jumpReady = [lineLoaded(JUMP_STEP)];
for (const [path, ready] of [[`/runs/${SHORT_RUN}`, RUN_USABLE], [`/runs/${HUGE_RUN}`, RUN_USABLE], [`/runs/${HUGE_RUN}?step=${JUMP_STEP}`, jumpReady]] as const) await timeTo(path, [...ready]);
for (let i = 0; i < ITERATIONS; i++) {
  short.push(await timeTo(`/runs/${SHORT_RUN}`, RUN_USABLE));
  huge.push(await timeTo(`/runs/${HUGE_RUN}`, RUN_USABLE));
  jump.push(await timeTo(`/runs/${HUGE_RUN}?step=${JUMP_STEP}`, jumpReady));
}
const shortMedian = row('100-step run: usable', short, '(none)');
const hugeMedian = row(`${HUGE_STEPS.toLocaleString('en-US')}-step run: usable`, huge, '(none)');
const jumpMedian = row(`  at ?step=${JUMP_STEP}`, jump, '(none)');
const ratio = hugeMedian / shortMedian;
console.log(`huge ÷ 100-step, usable: ${ratio.toFixed(2)} (target ≤ ${TARGETS.hugeRatio}); at ?step=${JUMP_STEP} ÷ 100-step: ${(jumpMedian / shortMedian).toFixed(2)}${ratio > TARGETS.hugeRatio ? '  MISSED' : ''}`);
if (ratio > TARGETS.hugeRatio) missed++;
console.log(`\n${missed === 0 ? 'every figure within its target' : `${missed} figure(s) over target`} (medians of ${ITERATIONS}; a shared 2-core machine makes them noisy)`);
await browser.close();
await server.close();
if (!args['data-dir'] && !args.keep) rmSync(dir, { recursive: true, force: true });
else console.log(`data kept in ${dir}`);
