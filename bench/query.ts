// Benchmark: analytics query speed over a large demo data set.
//   npx tsx bench/query.ts [--runs 100000] [--iterations 20] [--data-dir DIR] [--keep] [--reanalyse] [--only TEXT]
//                          [--save FILE] [--baseline FILE]
// Generates N seeded demo runs (about 30 steps and 20 tool calls each) through the ingest path
// (the run analyzer included) into a fresh data folder — or reuses DIR when it already holds
// them — then times every analytics endpoint and the runs list over HTTP, 20 times each after
// one warm-up, and prints median and p95. Targets (2-core machine, embedded engine): p95 under
// 300 ms for every endpoint, overview under 150 ms. Figures are noisy when other work shares
// the machine. `--only TEXT` times the endpoints whose label holds TEXT (e.g. `--only search`).
// `--save FILE` writes each endpoint's median and p95 as JSON; `--baseline FILE` (one saved by
// another run, e.g. at 100,000 runs) adds the ratio of each p95 to the baseline's. More runs
// asked of a folder whose generation finished are added to it (the ingest rate into a full
// folder: `--runs 1020000` over one of 1,000,000).
// Never part of the tests.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';
import { generateDemoRuns } from '../sources/demo/index.js';
import { startServer } from '../runtime/start-server.js';
import { openServices } from '../runtime/services.js';
import { timeEndpoints, type EndpointFigures } from './time-endpoints.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '100000' },
    iterations: { type: 'string', default: '20' },
    'data-dir': { type: 'string' },
    keep: { type: 'boolean', default: false },
    reanalyse: { type: 'boolean', default: false },
    only: { type: 'string' },
    save: { type: 'string' },
    baseline: { type: 'string' },
  },
});
const RUNS = Number(args.runs);
/** The regex the search is timed with (demo customer ids). */
const SEARCH_REGEX = 'CUS-[A-Z]{6}';
const ITERATIONS = Number(args.iterations);
const dir = args['data-dir'] ?? mkdtempSync(join(tmpdir(), 'trajscope-bench-query-'));
const reuse = !!args['data-dir'] && existsSync(join(dir, 'store'));

const config = loadConfig({ TRAJSCOPE_DATA_DIR: dir, TRAJSCOPE_PORT: '0', TRAJSCOPE_LOG_LEVEL: 'warn', TRAJSCOPE_BATCH_MAX_ROWS: '200000' });
const services = await openServices(config);
const [{ n }] = await services.storage.query<{ n: string }>('SELECT uniqExact(run_id) AS n FROM runs');
// A generation records how far it got (runs acknowledged, in order) and its time window in the
// data folder, so a stopped one resumes where it stopped with the same runs (1,000,000 runs take
// over an hour to ingest).
const progressFile = join(dir, 'bench-generation.json');
interface Generation { seed: number; runs: number; startMs: number; spanMs: number; done: number }
const saved: Generation | undefined = existsSync(progressFile) ? JSON.parse(readFileSync(progressFile, 'utf8')) : undefined;
// A generation stopped part way goes on; one that finished is extended to more runs.
const resume = saved !== undefined && saved.done < RUNS && (saved.runs === RUNS || saved.done === saved.runs);
if (resume || Number(n) < RUNS) {
  const gen: Generation = resume ? { ...saved, runs: RUNS } : { seed: 7, runs: RUNS, startMs: Date.now() - 30 * 86_400_000, spanMs: 30 * 86_400_000, done: 0 };
  if (resume) console.log(`resuming a generation of ${RUNS} runs at run ${gen.done}`);
  else if (reuse) console.log(`the data folder holds ${n} runs; generating ${RUNS} demo runs`);
  writeFileSync(progressFile, JSON.stringify(gen));
  // Where this generation starts (gen is the saved record when resuming, and advances).
  const startedAt = gen.done;
  const t0 = performance.now();
  let batch: unknown[] = [];
  let sent = gen.done;
  let events = 0;
  /** Batches in flight with the runs generated up to their end. */
  const pending: Array<{ done: Promise<unknown>; upTo: number }> = [];
  // Recorded once stored: every 10 batches, after a flush of the writer.
  let settled = 0;
  const settle = async () => {
    const first = pending.shift()!;
    await first.done;
    if (++settled % 10 !== 0 && pending.length > 0) return;
    await services.writer.flush();
    gen.done = first.upTo;
    writeFileSync(progressFile, JSON.stringify(gen));
  };
  for (const run of generateDemoRuns({ seed: gen.seed, runs: RUNS, startMs: gen.startMs, spanMs: gen.spanMs, from: gen.done })) {
    batch.push(...run);
    sent++;
    if (batch.length >= 20_000) {
      events += batch.length;
      pending.push({ done: services.ingestor.ingest(batch.map((value) => ({ ok: true as const, value }))), upTo: sent });
      batch = [];
      if (pending.length >= 4) await settle();
      if (sent % 10_000 < 700) process.stderr.write(`\ringest: ${sent}/${RUNS} runs, ${events} events, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
  }
  if (batch.length) {
    events += batch.length;
    pending.push({ done: services.ingestor.ingest(batch.map((value) => ({ ok: true as const, value }))), upTo: sent });
  }
  while (pending.length) await settle();
  await services.writer.flush();
  const t1 = performance.now();
  process.stderr.write(`\ringest: ${RUNS} runs (${RUNS - startedAt} this time), ${events} events in ${((t1 - t0) / 1000).toFixed(0)} s; analysing…\n`);
  await services.analyzer.drain();
  const from = resume ? startedAt : Number(n);
  console.log(
    `ingest ${((t1 - t0) / 1000).toFixed(0)} s (${Math.round(events / ((t1 - t0) / 1000))} events/s into a folder that held ${from} runs), ` +
      `analysis finished ${((performance.now() - t1) / 1000).toFixed(0)} s later`,
  );
} else {
  console.log(`reusing ${dir} (${n} runs)`);
  if (args.reanalyse) {
    const t = performance.now();
    services.analyzer.markDue(await services.storage.query<{ project: string; run_id: string }>('SELECT DISTINCT project, run_id FROM runs'));
    await services.analyzer.drain();
    console.log(`re-analysed every run in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  // Runs the scan at start found without a current analysis (after a migration that makes them stale).
  const t = performance.now();
  await services.analyzer.drain();
  if (performance.now() - t > 1_000) console.log(`analysis caught up ${((performance.now() - t) / 1000).toFixed(0)} s after the start`);
}
// Migrations that index the rows already stored do it in the background: time from its end.
const waitFrom = performance.now();
for (let i = 0; i < 3_600; i++) {
  const [m] = await services.storage.query<{ n: string }>('SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND NOT is_done');
  if (Number(m.n) === 0) break;
  if (i === 0) process.stderr.write('waiting for background mutations (indexing of stored rows)…\n');
  await new Promise((r) => setTimeout(r, 1_000));
}
if (performance.now() - waitFrom > 1_000) console.log(`background mutations finished ${((performance.now() - waitFrom) / 1000).toFixed(0)} s after the start`);
// What a quiet server reaches 10 s after the last write (TRAJSCOPE_COMPACT_IDLE_MS).
await services.compactor.compactNow();
const [counts] = await services.storage.query<Record<string, string>>(
  `SELECT (SELECT uniqExact(run_id) FROM runs) AS runs, (SELECT count() FROM steps) AS steps, (SELECT count() FROM tool_calls) AS tool_calls,
          (SELECT count() FROM run_analysis FINAL) AS analysed`,
);
console.log(`data: ${counts.runs} runs, ${counts.steps} steps, ${counts.tool_calls} tool calls, ${counts.analysed} analyses`);
// Bytes on disk of the active parts, after the merges above: what a million rows of each table take.
const disk = await services.storage.query<{ table: string; rows: string; bytes: string; parts: string }>(
  `SELECT table, sum(rows) AS rows, sum(bytes_on_disk) AS bytes, count() AS parts FROM system.parts
   WHERE database = currentDatabase() AND active GROUP BY table ORDER BY sum(bytes_on_disk) DESC`,
);
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
console.log(
  `on disk: ${mib(disk.reduce((a, d) => a + Number(d.bytes), 0))} in all; ` +
    disk
      .filter((d) => Number(d.rows) >= 10_000)
      .map((d) => `${d.table} ${mib(Number(d.bytes))} in ${d.parts} parts (${mib((Number(d.bytes) / Number(d.rows)) * 1e6)} a million rows)`)
      .join(', '),
);

const server = await startServer(config, services);
const [sample] = await services.storage.query<{ run_id: string; model: string; agent_version: string }>(
  `SELECT run_id, model, agent_version FROM run_analysis FINAL WHERE status = 'failure' ORDER BY run_id LIMIT 1`,
);
const versions = await services.storage.query<{ v: string }>(
  `SELECT agent_version AS v FROM run_analysis FINAL GROUP BY v ORDER BY count() DESC LIMIT 2`,
);
const [va, vb] = versions.map((x) => encodeURIComponent(x.v));
const model = encodeURIComponent(sample?.model ?? 'gpt-4o');

const endpoints: Array<[string, string, number]> = [
  ['overview', '/api/v1/overview', 150],
  ['overview, 7 days', `/api/v1/overview?from=${Date.now() - 7 * 86_400_000}`, 150],
  ['timeseries', '/api/v1/metrics/timeseries', 300],
  ['timeseries by model', '/api/v1/metrics/timeseries?group_by=model', 300],
  ['breakdown by model', '/api/v1/metrics/breakdown?by=model', 300],
  ['breakdown by tag', '/api/v1/metrics/breakdown?by=tag:team', 300],
  ['breakdown by tool', '/api/v1/metrics/breakdown?by=tool', 300],
  ['failures', '/api/v1/failures', 300],
  ['failures, 7 days vs the 7 before', `/api/v1/failures?from=${Date.now() - 7 * 86_400_000}`, 300],
  ['loops', '/api/v1/loops', 300],
  ['cost spikes', '/api/v1/costs/spikes', 300],
  ['compare', `/api/v1/compare?a[agent_version]=${va}&b[agent_version]=${vb}`, 300],
  ['compare, two windows', `/api/v1/compare?a[from]=${Date.now() - 14 * 86_400_000}&a[to]=${Date.now() - 7 * 86_400_000}&b[from]=${Date.now() - 7 * 86_400_000}`, 300],
  ['changes, 7 days vs the 7 before', `/api/v1/changes?from=${Date.now() - 7 * 86_400_000}`, 300],
  ['changes, cost per success', `/api/v1/changes?metric=cost_per_success&from=${Date.now() - 7 * 86_400_000}`, 300],
  ['changes, two versions', `/api/v1/changes?a[agent_version]=${va}&b[agent_version]=${vb}`, 300],
  ['runs list', '/api/v1/runs', 300],
  ['runs list, filtered + sorted', `/api/v1/runs?model=${model}&status=failure&sort=cost_usd&limit=100`, 300],
  ['runs list, failure_mode', '/api/v1/runs?failure_mode=dead_loop,tests_failed', 300],
  ['runs list, search', '/api/v1/runs?q=run-00', 300],
  ['run detail', `/api/v1/runs/${sample?.run_id}`, 300],
  ['run steps index', `/api/v1/runs/${sample?.run_id}/steps/index`, 300],
  ['errors', '/api/v1/errors', 300],
  ['errors, 7 days', `/api/v1/errors?from=${Date.now() - 7 * 86_400_000}`, 300],
  ['hacking by task', '/api/v1/hacking?by=task', 300],
  // Full-text search: two words, a phrase, an exact substring, a regex.
  ['search, a word', '/api/v1/search?q=SecureCookieSessionInterface', 500],
  ['search, a phrase', `/api/v1/search?mode=phrase&q=${encodeURIComponent('omar.rossi')}`, 500],
  ['search, another word', '/api/v1/search?q=pytets', 500],
  ['search, a substring', '/api/v1/search?mode=substring&q=CUS-DSFHPC', 500],
  ['search, a regex', `/api/v1/search?mode=regex&q=${encodeURIComponent(SEARCH_REGEX)}`, 500],
];

const figures: Record<string, EndpointFigures> = {};
const baseline = args.baseline ? (JSON.parse(readFileSync(args.baseline, 'utf8')) as { figures: Record<string, EndpointFigures> }).figures : undefined;
await timeEndpoints(server.url, args.only === undefined ? endpoints : endpoints.filter(([label]) => label.includes(args.only!)), ITERATIONS, undefined, figures, baseline);
if (args.save) writeFileSync(args.save, JSON.stringify({ runs: Math.max(RUNS, Number(n)), at: new Date().toISOString(), figures }, null, 1));

// The yardstick of a regex search: the engine's own full scan of the same columns, counted.
const scans: number[] = [];
const timesRegex = args.only === undefined || 'search, a regex'.includes(args.only);
for (let i = 0; timesRegex && i < 5; i++) {
  const t = performance.now();
  await services.storage.query(
    `SELECT (SELECT count() FROM steps WHERE match(action, {re:String}) OR match(observation, {re:String}) OR match(error_message, {re:String}))
          + (SELECT count() FROM tool_calls WHERE match(arguments, {re:String}) OR match(output, {re:String}) OR match(error_message, {re:String})) AS n`,
    { re: SEARCH_REGEX },
  );
  scans.push(performance.now() - t);
}
scans.sort((x, y) => x - y);
if (timesRegex) console.log(`engine's full scan of the searched columns for the regex, median of 5: ${scans[2]!.toFixed(0)} ms`);
await server.close();
if (!args['data-dir'] && !args.keep) rmSync(dir, { recursive: true, force: true });
else console.log(`data kept in ${dir}`);
