// Benchmark of Kafka ingestion (broker running: npm run kafka:start).
//   npx tsx bench/kafka-ingest.ts [--events 1000000] [--rate 10000] [--seconds 20] [--compression gzip|none]
//                                 [--only backlog|latency] [--repeat N] [--insert-format rowbinary|json]
//                                 [--profile DIR] [--worker-status] [--worker-flags "--flag ..."]
// The worker is the built CLI (`npm run build` first), as `npx trajscope ingest` runs it.
// 1. direct: the same rows inserted straight into the engine (no Kafka, no validation), encoded
//    as the worker encodes them (--insert-format, RowBinary by default), and as JSON beside;
// 2. backlog: pre-produce N step and tool-call events, then a `trajscope ingest` worker (its own
//    process, its own embedded engine) drains them: sustained events/s from its first commit to
//    the last, and its peak RSS; the stored count is checked afterwards. With --repeat N the same
//    topic is drained N times (a new consumer group and data folder each time), and the median,
//    lowest and highest are printed: on a shared machine one drain can be far off the next;
// 3. latency: produce at a steady rate (ticks of 100 ms) while a worker consumes; a tick is
//    queryable once the group's committed offsets pass it (the worker commits only after the
//    insert returned, so committed rows are readable): p50/p99 from produce to that moment.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import kafkajs, { type Admin, type Message } from 'kafkajs';
import { ensureTopics } from '../ingest/kafka/topics.js';
import { openStorage } from '../storage/gateway.js';
import { benchEvents } from './bench-events.js';
import { directInsertRate, type InsertFormat } from './direct-insert.js';
import { builtCli } from './built-cli.js';
import { cpuBetween, threadCpu, type ThreadCpu } from './thread-cpu.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    rate: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '20' },
    partitions: { type: 'string', default: '6' },
    compression: { type: 'string', default: 'gzip' },
    broker: { type: 'string', default: '127.0.0.1:9092' },
    // Write a CPU profile of each worker into this folder (open it in Chrome DevTools).
    profile: { type: 'string' },
    // Run one part only: the direct insert and the backlog drain, or the latency run.
    only: { type: 'string' },
    // Drain the pre-produced backlog this many times (fresh group and data folder each).
    repeat: { type: 'string', default: '1' },
    // How the worker (and the direct insert) send steps and tool calls to the engine.
    'insert-format': { type: 'string', default: 'rowbinary' },
    // Let the worker log its rate, lag and memory every second.
    'worker-status': { type: 'boolean', default: false },
    // Node and V8 flags for the worker, separated by spaces (e.g. "--max-old-space-size=320").
    'worker-flags': { type: 'string', default: '' },
  },
});
// Checked first: a stale build fails before minutes of producing.
const CLI = builtCli();
const TOTAL = Number(args.events);
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const PARTITIONS = Number(args.partitions);
const REPEAT = Number(args.repeat);
const INSERT_FORMAT = args['insert-format'] as InsertFormat;
if (INSERT_FORMAT !== 'rowbinary' && INSERT_FORMAT !== 'json') throw new Error('--insert-format takes rowbinary or json');
if (!Number.isInteger(REPEAT) || REPEAT < 1 || REPEAT > 20) throw new Error('--repeat takes 1 to 20');
const BROKER = args.broker!;
if (!/^(127\.\d+\.\d+\.\d+|localhost|\[::1\]):\d+$/.test(BROKER)) throw new Error('the benchmark only talks to a loopback broker');
const compression = args.compression === 'none' ? kafkajs.CompressionTypes.None : kafkajs.CompressionTypes.GZIP;
const run = Date.now().toString(36);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const kafka = new kafkajs.Kafka({ clientId: 'trajscope-bench', brokers: [BROKER], logLevel: kafkajs.logLevel.NOTHING });
const admin = kafka.admin();
await admin.connect();

function startWorker(topic: string, dataDir: string, group = `${topic}.group`): ChildProcess {
  const prof = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : [];
  const flags = args['worker-flags']!.split(' ').filter(Boolean);
  return spawn(process.execPath, [...flags, ...prof, CLI, 'ingest', '--status-every', args['worker-status'] ? '1' : '0'], {
    env: { ...process.env, TRAJSCOPE_DATA_DIR: dataDir, TRAJSCOPE_LOG_LEVEL: args['worker-status'] ? 'info' : 'warn', KAFKA_BROKERS: BROKER, KAFKA_TOPIC: topic, KAFKA_GROUP_ID: group, KAFKA_PARTITIONS: String(PARTITIONS), TRAJSCOPE_INSERT_FORMAT: INSERT_FORMAT },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 60_000);
  await done;
  clearTimeout(t);
}

function peakRssMiB(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)?.[1] ?? 0) / 1024;
}

async function committedOffsets(topic: string, group = `${topic}.group`): Promise<Map<number, number>> {
  const [g] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  return new Map((g?.partitions ?? []).map((p) => [p.partition, Math.max(0, Number(p.offset))]));
}
const sum = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);

async function until<T>(what: string, ms: number, every: number, check: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`timed out after ${ms} ms: ${what}`);
}

// 2. Backlog drain.
interface BacklogResult {
  rate: number;
  rss: number;
  stored: number;
  cpu: ThreadCpu;
  seconds: number;
  /** From SIGTERM after the last commit to the worker's exit: it analyses the runs still waiting first. */
  stopSeconds: number;
  /** Runs with a verdict in run_analysis, and runs stored. */
  analysed: number;
  runs: number;
}

/** Produces the events to a new topic, returned. */
async function produceBacklog(events: Record<string, unknown>[]): Promise<string> {
  const topic = `bench.backlog.${run}`;
  await ensureTopics(admin, [{ topic, numPartitions: PARTITIONS }, { topic: `${topic}.dlq`, numPartitions: 1 }]);
  const producer = kafka.producer();
  await producer.connect();
  const t0 = performance.now();
  const CHUNK = 10_000;
  const inflight: Promise<unknown>[] = [];
  for (let i = 0; i < events.length; i += CHUNK) {
    const messages: Message[] = events.slice(i, i + CHUNK).map((e) => ({ key: String(e.run_id), value: JSON.stringify(e) }));
    inflight.push(producer.send({ topic, acks: -1, compression, messages }));
    if (inflight.length >= 4) await inflight.shift();
  }
  await Promise.all(inflight);
  await producer.disconnect();
  console.log(`pre-produced ${fmt(events.length)} events in ${((performance.now() - t0) / 1000).toFixed(1)} s (${args.compression})`);
  return topic;
}

/** A worker of a new consumer group drains the topic's `total` events into a fresh data folder. */
async function drain(topic: string, total: number, dataDir: string, group: string): Promise<BacklogResult> {
  const worker = startWorker(topic, dataDir, group);
  try {
    // From the moment the worker joined the group (ready to fetch) to the last commit.
    const first = await until('the worker to join', 120_000, 20, async () =>
      (await admin.describeGroups([group])).groups[0]?.state === 'Stable' ? { at: performance.now(), c: 0 } : undefined,
    );
    const cpuAtStart = threadCpu(worker.pid!);
    const end = await until('the backlog to drain', 600_000, 50, async () => {
      const c = sum(await committedOffsets(topic, group));
      return c >= total ? performance.now() : undefined;
    });
    const cpu = cpuBetween(cpuAtStart, threadCpu(worker.pid!));
    const rss = peakRssMiB(worker.pid!);
    const stopAt = performance.now();
    await stopWorker(worker);
    const stopSeconds = (performance.now() - stopAt) / 1000;
    const storage = await openStorage({ dataDir, database: 'default' });
    const [r] = await storage.query<{ n: string; runs: string; analysed: string }>(
      `SELECT (SELECT count() FROM steps FINAL WHERE project = 'bench') + (SELECT count() FROM tool_calls FINAL WHERE project = 'bench') AS n,
              (SELECT uniqExact(run_id) FROM runs WHERE project = 'bench') AS runs,
              (SELECT uniqExact(run_id) FROM run_analysis WHERE project = 'bench') AS analysed`,
    );
    await storage.close();
    const seconds = (end - first.at) / 1000;
    return { rate: (total - first.c) / seconds, rss, stored: Number(r.n), cpu, seconds, stopSeconds, analysed: Number(r.analysed), runs: Number(r.runs) };
  } finally {
    await stopWorker(worker);
  }
}

// 3. Produce-to-queryable latency at a steady rate.
async function latency(dataDir: string): Promise<{ p50: number; p99: number; max: number; ticks: number; rss: number }> {
  const topic = `bench.latency.${run}`;
  await ensureTopics(admin, [{ topic, numPartitions: PARTITIONS }, { topic: `${topic}.dlq`, numPartitions: 1 }]);
  const worker = startWorker(topic, dataDir);
  const producer = kafka.producer();
  await producer.connect();
  try {
    await until('the worker to join', 120_000, 100, async () => ((await admin.describeGroups([`${topic}.group`])).groups[0]?.state === 'Stable' ? true : undefined));
    const perTick = Math.max(1, Math.round(RATE / 10));
    const ticks = SECONDS * 10;
    const pending: { sentAt: number; last: Map<number, number> }[] = [];
    const latencies: number[] = [];
    let stop = false;
    let stopAt = 0;
    const poller = (async () => {
      while (!stop || pending.length) {
        const c = await committedOffsets(topic);
        const now = performance.now();
        for (let i = pending.length - 1; i >= 0; i--) {
          const t = pending[i];
          if ([...t.last].every(([p, off]) => (c.get(p) ?? 0) > off)) {
            latencies.push(now - t.sentAt);
            pending.splice(i, 1);
          }
        }
        if (stop && now > stopAt + 30_000) throw new Error(`${pending.length} ticks never became queryable`);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const start = performance.now();
    let seq = 0;
    for (let k = 0; k < ticks; k++) {
      const due = start + k * 100;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const evs = benchEvents(perTick, 'latency').map((e) => ({ ...e, run_id: `lat-${run}-${k}-${String(e.run_id)}`, call_id: e.call_id ? `${k}-${String(e.call_id)}` : undefined }));
      const messages: Message[] = evs.map((e) => ({ partition: seq++ % PARTITIONS, key: String(e.run_id), value: JSON.stringify(e) }));
      const sentAt = performance.now();
      const meta = await producer.send({ topic, acks: -1, compression, messages });
      const counts = new Map<number, number>();
      for (const m of messages) counts.set(m.partition!, (counts.get(m.partition!) ?? 0) + 1);
      const last = new Map<number, number>();
      for (const r of meta) last.set(r.partition, Number(r.baseOffset) + (counts.get(r.partition) ?? 1) - 1);
      pending.push({ sentAt, last });
    }
    stopAt = performance.now();
    stop = true;
    await poller;
    latencies.sort((a, b) => a - b);
    const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
    const rss = peakRssMiB(worker.pid!);
    return { p50: q(0.5), p99: q(0.99), max: latencies[latencies.length - 1], ticks: latencies.length, rss };
  } finally {
    await producer.disconnect();
    await stopWorker(worker);
  }
}

function printDrain(b: BacklogResult, total: number, directRate: number): void {
  console.log(`Kafka -> trajscope ingest -> engine: ${fmt(b.rate)} events/s sustained (stored ${fmt(b.stored)} of ${fmt(total)}), worker peak RSS ${fmt(b.rss)} MiB`);
  console.log(`Kafka / direct: ${(b.rate / directRate).toFixed(2)}`);
  // The drain ends at the last commit; runs whose analysis was still waiting (debounce, a pass
  // under way) are analysed when the worker stops, so the rate counting that too is printed beside.
  console.log(
    `run analysis: ${fmt(b.analysed)} of ${fmt(b.runs)} runs analysed; the worker stopped ${b.stopSeconds.toFixed(1)} s after the last commit ` +
      `(analysing the runs still waiting): ${fmt(total / (b.seconds + b.stopSeconds))} events/s counting that time`,
  );
  // Where the worker's CPU went while draining (per-thread counters of /proc).
  const cpu = cpuSeconds(b);
  const parts = [...b.cpu].sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k} ${v.toFixed(1)} s (${fmt((v * 1e6) / total)} µs an event)`);
  console.log(`worker CPU while draining, ${b.seconds.toFixed(1)} s: ${parts.join(', ')}; total ${cpu.toFixed(1)} s = ${(cpu / b.seconds).toFixed(2)} cores, ${fmt((cpu * 1e6) / total)} µs an event`);
}

const cpuSeconds = (b: BacklogResult) => [...b.cpu.values()].reduce((a, v) => a + v, 0);

/** Median, lowest and highest of the drains' figures. */
function printDrainSummary(drains: readonly BacklogResult[], total: number, directRate: number): void {
  const spread = (values: number[], f: (n: number) => string) => {
    const v = [...values].sort((a, b) => a - b);
    const mid = v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    return `median ${f(mid)} (${f(v[0])} to ${f(v[v.length - 1])})`;
  };
  console.log(`${drains.length} drains of the same topic:`);
  console.log(`  events/s sustained: ${spread(drains.map((b) => b.rate), fmt)}; Kafka / direct: ${spread(drains.map((b) => b.rate / directRate), (n) => n.toFixed(2))}`);
  console.log(`  events/s counting the worker's stop: ${spread(drains.map((b) => total / (b.seconds + b.stopSeconds)), fmt)}`);
  console.log(`  worker CPU: ${spread(drains.map((b) => (cpuSeconds(b) * 1e6) / total), fmt)} µs an event, ${spread(drains.map((b) => cpuSeconds(b) / b.seconds), (n) => n.toFixed(2))} cores`);
  console.log(`  worker peak RSS: ${spread(drains.map((b) => b.rss), fmt)} MiB`);
}

const events = benchEvents(TOTAL);
console.log(`events: ${fmt(events.length)} (steps and tool calls), ${PARTITIONS} partitions, broker ${BROKER}`);
try {
  if (args.only !== 'latency') {
    // 1. The same rows straight into the engine, batches of 50,000 events (the writer's batch).
    const directRate = await directInsertRate(events, 50_000, INSERT_FORMAT);
    const other = INSERT_FORMAT === 'json' ? 'rowbinary' : 'json';
    const otherRate = await directInsertRate(events, 50_000, other);
    console.log(`direct insert into the engine, batches of 50,000: ${fmt(directRate)} events/s as ${INSERT_FORMAT} (the worker's format), ${fmt(otherRate)} as ${other}`);
    const topic = await produceBacklog(events);
    const drains: BacklogResult[] = [];
    for (let r = 1; r <= REPEAT; r++) {
      const dir = mkdtempSync(join(tmpdir(), 'trajscope-bench-kafka-'));
      const b = await drain(topic, events.length, dir, `${topic}.group.${r}`).finally(() => rmSync(dir, { recursive: true, force: true }));
      drains.push(b);
      if (REPEAT > 1) console.log(`drain ${r} of ${REPEAT}:`);
      printDrain(b, events.length, directRate);
    }
    if (REPEAT > 1) printDrainSummary(drains, events.length, directRate);
  }
  if (args.only !== 'backlog') {
    // A fresh data folder: the backlog's runs would otherwise keep the worker's run analyzer busy.
    const latencyDir = mkdtempSync(join(tmpdir(), 'trajscope-bench-kafka-lat-'));
    const l = await latency(latencyDir).finally(() => rmSync(latencyDir, { recursive: true, force: true }));
    console.log(`produce-to-queryable at ${fmt(RATE)} events/s for ${SECONDS} s (${l.ticks} ticks of ${fmt(RATE / 10)}): p50 ${fmt(l.p50)} ms, p99 ${fmt(l.p99)} ms, max ${fmt(l.max)} ms; worker peak RSS ${fmt(l.rss)} MiB`);
  }
} finally {
  await admin.disconnect();
}
