// Benchmark: events/s through POST /v1/events (batches of 1,000 step and tool-call events,
// several requests in flight, clock stopped when all are stored) next to inserting the same rows
// straight into the engine.
//   npx tsx bench/http-ingest.ts [--events 300000] [--concurrency 4] [--ack stored|buffered]
//                                [--http-only] [--profile DIR]
// The server runs in a child process (the built CLI, `npm run build` first; its own embedded
// engine); the client sends from this one.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'node:http';
import { benchEvents } from './bench-events.js';
import { directInsertRate } from './direct-insert.js';
import { builtCli } from './built-cli.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '300000' },
    concurrency: { type: 'string', default: '4' },
    port: { type: 'string', default: '7391' },
    /** Write a CPU profile of the server process into this folder. */
    profile: { type: 'string' },
    /** Skip the direct-insert measurements. */
    'http-only': { type: 'boolean', default: false },
    /** When the server answers: after the rows are stored (default) or once buffered. */
    ack: { type: 'string', default: 'stored' },
  },
});
// Checked first: a stale build fails before the direct runs.
const CLI = builtCli();
const TOTAL = Number(args.events);
const CONCURRENCY = Number(args.concurrency);
const PORT = Number(args.port);
const BATCH = 1000;

const events = benchEvents(TOTAL);
const bodies: string[] = [];
for (let i = 0; i < events.length; i += BATCH) bodies.push(JSON.stringify(events.slice(i, i + BATCH)));
console.log(`events: ${events.length} (steps and tool calls), ${bodies.length} bodies of ${BATCH}, ${(bodies.reduce((n, b) => n + b.length, 0) / 1e6).toFixed(1)} MB of JSON`);

// 2. Through HTTP.
async function viaHttp(): Promise<{ rate: number; rss: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'trajscope-bench-http-'));
  const profile = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : [];
  const child = spawn(process.execPath, [...profile, CLI, 'serve', '--port', String(PORT), '--data-dir', dir, '--log-level', 'warn'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, TRAJSCOPE_INGEST_ACK: args.ack },
  });
  try {
    await waitReady(`http://127.0.0.1:${PORT}/readyz`, 60_000);
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    let next = 0;
    let accepted = 0;
    let retried503 = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++];
          for (let attempt = 1; ; attempt++) {
            const r = await post(agent, PORT, body);
            if (r.status === 503 && attempt < 100) {
              retried503++;
              await new Promise((res) => setTimeout(res, 100));
              continue;
            }
            if (r.status !== 200) throw new Error(`POST answered ${r.status}: ${r.text.slice(0, 200)}`);
            accepted += (JSON.parse(r.text) as { accepted: number }).accepted;
            break;
          }
        }
      }),
    );
    if (accepted !== events.length) throw new Error(`accepted ${accepted} of ${events.length}`);
    // The clock stops when every event is stored: with ack=buffered the last ones are written
    // after their answer, so wait until the writer holds no row (buffered or being inserted).
    // The ingest status is cheap to ask; the stored count is checked once the clock stopped.
    for (let i = 0; i < 6000; i++) {
      const st = await fetch(`http://127.0.0.1:${PORT}/api/v1/ingest/status`).then((r) => r.json() as Promise<{ writer: { buffered_rows: number } }>);
      if (st.writer.buffered_rows === 0) break;
      await new Promise((res) => setTimeout(res, 10));
    }
    const secs = (performance.now() - t) / 1000;
    const ov = await fetch(`http://127.0.0.1:${PORT}/api/v1/overview?project=bench`).then((r) => r.json() as Promise<{ steps_total: number; tool_calls: number }>);
    const stored = ov.steps_total + ov.tool_calls;
    if (stored !== events.length) throw new Error(`stored ${stored} of ${events.length}`);
    if (retried503) console.log(`(${retried503} answers were 503 and retried after a pause)`);
    const rss = Number((await import('node:fs')).readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)?.[1] ?? 0) / 1024;
    agent.destroy();
    return { rate: events.length / secs, rss };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

function post(agent: Agent, port: number, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/events', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function waitReady(url: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server not ready after ${ms} ms`);
}

// 1. Direct: the same rows straight into the engine, encoded as the server's writer does (RowBinary).
const direct1k = args['http-only'] ? NaN : await directInsertRate(events, 1000, 'rowbinary');
console.log(`direct insert, batches of 1,000 events:  ${Math.round(direct1k).toLocaleString('en-US')} events/s`);
const direct50k = args['http-only'] ? NaN : await directInsertRate(events, 50_000, 'rowbinary');
console.log(`direct insert, batches of 50,000 events: ${Math.round(direct50k).toLocaleString('en-US')} events/s`);
const http = await viaHttp();
console.log(`POST /v1/events (ack=${args.ack}), batches of 1,000, ${CONCURRENCY} in flight, until all stored: ${Math.round(http.rate).toLocaleString('en-US')} events/s (server peak RSS ${Math.round(http.rss)} MiB)`);
console.log(`HTTP / direct(1,000): ${(http.rate / direct1k).toFixed(2)}   HTTP / direct(50,000): ${(http.rate / direct50k).toFixed(2)}`);
