// Benchmark of the run analyzer's work per batch: reading runs back (ingest/analysis/read-runs.ts)
// and analysing them (analyze-run.ts), on demo runs stored through the ingest path.
//   npx tsx bench/run-analysis.ts [--runs 2000] [--batch 500] [--rounds 5] [--data demo|bench]
// --data bench: runs of the Kafka and HTTP ingest benchmarks' events (100 steps and 100 tool calls
// each, no run_end) instead of demo runs.
// Prints, for batches of runs read back as the analyzer reads them, wall time of the read and of
// the analysis, and the process's CPU (all threads, the engine's too) per row read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../bin/config.js';
import { analyzeRun } from '../ingest/analysis/analyze-run.js';
import { readRuns } from '../ingest/analysis/read-runs.js';
import { generateDemoRuns } from '../ingest/demo/index.js';
import { openServices } from '../server/services.js';
import { benchEvents } from './bench-events.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '2000' },
    batch: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '5' },
    data: { type: 'string', default: 'demo' },
  },
});
if (args.data !== 'demo' && args.data !== 'bench') throw new Error('--data is demo or bench');
const RUNS = Number(args.runs);
const BATCH = Number(args.batch);
const ROUNDS = Number(args.rounds);

const dir = mkdtempSync(join(tmpdir(), 'trajscope-bench-analysis-'));
// The analyzer of the services stays idle (long debounce and sweep): the benchmark drives the reads.
const services = await openServices(
  loadConfig({ TRAJSCOPE_DATA_DIR: dir, TRAJSCOPE_LOG_LEVEL: 'warn', TRAJSCOPE_ANALYSIS_DEBOUNCE_MS: '3600000', TRAJSCOPE_ANALYSIS_SWEEP_MS: '3600000', TRAJSCOPE_ANALYSIS_DELAY_MS: '3600000' }),
);
try {
  const events: Record<string, unknown>[] =
    args.data === 'bench'
      ? benchEvents(RUNS * 200)
      : [...generateDemoRuns({ seed: 3, runs: RUNS, startMs: Date.parse('2026-11-01T00:00:00Z'), spanMs: 86_400_000 })].flat();
  for (let i = 0; i < events.length; i += 20_000) {
    await services.ingestor.ingest(events.slice(i, i + 20_000).map((value) => ({ ok: true as const, value })), { wait: true });
  }
  const [{ project }] = await services.storage.query<{ project: string }>('SELECT project FROM runs GROUP BY project ORDER BY uniqExact(run_id) DESC LIMIT 1');
  const ids = (await services.storage.query<{ run_id: string }>('SELECT DISTINCT run_id FROM runs WHERE project = {p:String} ORDER BY run_id LIMIT {n:UInt32}', { p: project, n: BATCH })).map((r) => r.run_id);
  const [size] = await services.storage.query<{ rows: string; text: string }>(
    `SELECT (SELECT count() FROM steps WHERE project = {p:String} AND run_id IN {ids:Array(String)})
          + (SELECT count() FROM tool_calls WHERE project = {p:String} AND run_id IN {ids:Array(String)}) AS rows,
            (SELECT sum(length(action) + length(observation)) FROM steps WHERE project = {p:String} AND run_id IN {ids:Array(String)})
          + (SELECT sum(length(arguments) + length(output)) FROM tool_calls WHERE project = {p:String} AND run_id IN {ids:Array(String)}) AS text`,
    { p: project, ids },
  );
  const rows = Number(size.rows);
  console.log(`${events.length.toLocaleString('en-US')} ${args.data} events stored; a batch: ${ids.length} runs of ${project}, ${rows.toLocaleString('en-US')} step and call rows, ${(Number(size.text) / 1e6).toFixed(1)} MB of text`);
  for (let round = 0; round < ROUNDS; round++) {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const runs = await readRuns(services.storage, project, ids);
    const t1 = performance.now();
    for (const run of runs) analyzeRun(run, { now: Date.now() });
    const t2 = performance.now();
    const used = process.cpuUsage(cpu);
    console.log(
      `round ${round + 1}: read ${(t1 - t0).toFixed(0)} ms, analyse ${(t2 - t1).toFixed(0)} ms, CPU ${((used.user + used.system) / 1000).toFixed(0)} ms (${((used.user + used.system) / rows).toFixed(1)} µs a row)`,
    );
  }
} finally {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
}
