// Benchmark of the SDKs: what one call costs the agent (queueing a step; nothing listens, so
// nothing is sent), and events/s from SDK call to stored (POST /v1/events, ack=stored; with
// --ack buffered, to acknowledged once buffered) for the TypeScript SDK in this process and the
// Python SDK in a python3 child. One request is in flight per client: with ack=stored each waits
// for the server's batch age (TRAJSCOPE_BATCH_MAX_AGE_MS), which bounds one client's rate.
//   npx tsx bench/sdk.ts [--events 100000] [--port 7392] [--ack stored|buffered]
// The server runs in a child process (its own embedded engine). The queues are sized to hold all
// events, since the calls come faster than any server stores them.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoPath } from '../schemas/paths.js';
import { TrajscopeClient } from '../sdk/src/index.js';

const { values: args } = parseArgs({
  options: { events: { type: 'string', default: '100000' }, port: { type: 'string', default: '7392' }, ack: { type: 'string', default: 'stored' } },
});
const EVENTS = Number(args.events);
const ACK = args.ack === 'buffered' ? 'buffered' : 'stored';
const PORT = Number(args.port);
const STEPS_PER_RUN = 50; // each step with one tool call: 2 events per step, plus run_start and run_end
const RUNS = Math.max(1, Math.round(EVENTS / (2 * STEPS_PER_RUN + 2)));
const TOTAL = RUNS * (2 * STEPS_PER_RUN + 2);

function record(ts: TrajscopeClient, prefix: string): void {
  for (let r = 0; r < RUNS; r++) {
    const run = ts.startRun({ runId: `${prefix}-${r}`, agent: { name: 'bench' }, model: 'gpt-4o' });
    for (let s = 0; s < STEPS_PER_RUN; s++) {
      run.step({ inputTokens: 1000 + s, outputTokens: 50, latencyMs: 800, action: `bash {"cmd":"ls ${s}"}`, observation: 'a.py b.py' });
      run.toolCall({ tool: 'bash', arguments: { cmd: `ls ${s}` }, output: 'a.py b.py', durationMs: 20 });
    }
    run.endRun({ status: 'success', reward: 1 });
  }
}

// 1. The agent's cost: queueing, nothing sent (no server on the port, long interval).
{
  const ts = new TrajscopeClient({ url: 'http://127.0.0.1:9', maxQueueSize: TOTAL + 1, batchSize: TOTAL + 1, flushIntervalMs: 3_600_000, flushOnExit: false });
  const t = performance.now();
  record(ts, 'enqueue');
  const us = ((performance.now() - t) * 1000) / TOTAL;
  console.log(`TypeScript SDK, one call (build + queue an event): ${us.toFixed(2)} µs (${TOTAL.toLocaleString('en-US')} calls)`);
  await ts.shutdown(0);
}

const PY = String.raw`
import sys, time, json
sys.path.insert(0, "sdk/python")
from trajscope import Client
url, runs, steps, mode, ack = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
total = runs * (2 * steps + 2)
if mode == "enqueue":
    c = Client("http://127.0.0.1:9", max_queue_size=total + 1, batch_size=total + 1, flush_interval=3600, flush_at_exit=False)
else:
    c = Client(url, project="bench-py", ack=ack, batch_size=1000, max_queue_size=total + 1, flush_interval=0.05, flush_at_exit=False)
t = time.perf_counter()
for r in range(runs):
    run = c.start_run(run_id="py-%d" % r, agent={"name": "bench"}, model="gpt-4o")
    for s in range(steps):
        run.step(input_tokens=1000 + s, output_tokens=50, latency_ms=800, action='bash {"cmd":"ls %d"}' % s, observation="a.py b.py")
        run.tool_call("bash", arguments={"cmd": "ls %d" % s}, output="a.py b.py", duration_ms=20)
    run.end_run("success", reward=1)
queued = time.perf_counter() - t
ok = c.flush(600) if mode != "enqueue" else True
secs = time.perf_counter() - t
stats = c.shutdown(0 if mode == "enqueue" else 10)
print(json.dumps({"us_per_call": queued * 1e6 / total, "events_per_s": total / secs, "ok": ok, "stats": stats}))
`;

function python(mode: 'enqueue' | 'send'): { us_per_call: number; events_per_s: number; ok: boolean; stats: Record<string, number> } {
  const r = spawnSync('python3', ['-c', PY, `http://127.0.0.1:${PORT}`, String(RUNS), String(STEPS_PER_RUN), mode, ACK], { cwd: repoPath(), encoding: 'utf8', timeout: 900_000 });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

{
  const py = python('enqueue');
  console.log(`Python SDK, one call (build + queue an event): ${py.us_per_call.toFixed(2)} µs`);
}

// 2. From SDK call to stored, through a real server.
const dir = mkdtempSync(join(tmpdir(), 'trajscope-bench-sdk-'));
const child = spawn(process.execPath, ['--import', 'tsx', repoPath('bin', 'cli.ts'), 'serve', '--port', String(PORT), '--data-dir', dir, '--log-level', 'warn'], {
  stdio: ['ignore', 'inherit', 'inherit'],
  cwd: repoPath(),
});
try {
  const end = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${PORT}/readyz`).then((r) => r.ok).catch(() => false);
    if (up) break;
    if (Date.now() > end) throw new Error('server not ready after 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const ts = new TrajscopeClient({ url: `http://127.0.0.1:${PORT}`, project: 'bench-ts', ack: ACK, batchSize: 1000, maxQueueSize: TOTAL + 1, flushIntervalMs: 50, flushOnExit: false });
  const t = performance.now();
  record(ts, 'ts');
  const ok = await ts.flush(600_000);
  const secs = (performance.now() - t) / 1000;
  const stats = await ts.shutdown();
  if (!ok || stats.sent !== TOTAL) throw new Error(`TypeScript SDK: sent ${stats.sent} of ${TOTAL}`);
  console.log(`TypeScript SDK → POST /v1/events (ack=${ACK}), batches of 1,000: ${Math.round(TOTAL / secs).toLocaleString('en-US')} events/s (${TOTAL.toLocaleString('en-US')} events)`);
  const py = python('send');
  if (!py.ok || py.stats.sent !== TOTAL) throw new Error(`Python SDK: sent ${py.stats.sent} of ${TOTAL}`);
  console.log(`Python SDK → POST /v1/events (ack=${ACK}), batches of 1,000: ${Math.round(py.events_per_s).toLocaleString('en-US')} events/s`);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
