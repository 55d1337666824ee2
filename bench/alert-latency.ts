// Alert latency: while events stream at a steady rate (default 5,000 events/s) into a local
// `trajscope serve` (child process, embedded storage, default settings), runs that enter a dead
// loop are mixed in; the time from sending the step that closes each loop to the arrival of its
// signed dead_loop webhook at a receiver on 127.0.0.1 is measured. Prints p50/p95/max over the
// loops (default 60).
//
// Usage: npx tsx bench/alert-latency.ts [--rate 5000] [--loops 60] [--every-ms 200] [--ack stored|buffered]
// (--ack: when POST /v1/events answers; `stored`, the default, waits for the batch to be written,
// up to TRAJSCOPE_BATCH_MAX_AGE_MS; `buffered` answers once validated, and live detection starts then.)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quantile } from '../analytics/robust-stats.js';
import { repoPath } from '../schemas/paths.js';

const args = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const RATE = opt('rate', 5000);
const LOOPS = opt('loops', 60);
const EVERY_MS = opt('every-ms', 200);
const TICK_MS = 100;
const ACK = args.includes('--ack') ? args[args.indexOf('--ack') + 1] : 'stored';
if (ACK !== 'stored' && ACK !== 'buffered') throw new Error('--ack is stored or buffered');
const PROJECT = 'bench-alerts';

// ---- receiver ----
const closedAt = new Map<string, number>();
/** When the POST carrying the closing step was answered (the events are stored then). */
const storedAt = new Map<string, number>();
const latencies: number[] = [];
const afterStored: number[] = [];
const seen = new Set<string>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.now();
    res.writeHead(200).end();
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      const id = body?.run?.run_id as string | undefined;
      if (body.kind === 'dead_loop' && id && closedAt.has(id) && !seen.has(id)) {
        seen.add(id);
        latencies.push(at - closedAt.get(id)!);
        if (storedAt.has(id)) afterStored.push(at - storedAt.get(id)!);
      }
    } catch {
      /* not ours */
    }
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

// ---- server ----
const dataDir = mkdtempSync(join(tmpdir(), 'trajscope-bench-alerts-'));
const child = spawn(process.execPath, ['--import', 'tsx', repoPath('bin', 'cli.ts'), 'serve'], {
  cwd: repoPath(),
  env: { ...process.env, TRAJSCOPE_DATA_DIR: dataDir, TRAJSCOPE_PORT: '0', TRAJSCOPE_WEBHOOK_ALLOW: '127.0.0.1/32', TRAJSCOPE_LOG_LEVEL: 'info' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const base = await new Promise<string>((resolve, reject) => {
  let out = '';
  const onData = (b: Buffer) => {
    out += b.toString();
    const m = /serving (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
    if (m) resolve(m[1]);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  child.once('exit', (code) => reject(new Error(`server exited (${code}):\n${out}`)));
  setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 90_000);
});

let exitCode = 0;
try {
  const rule = await fetch(`${base}/api/v1/alerts/rules`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench loops', kind: 'dead_loop', cooldown_s: 3600, filters: { project: PROJECT }, webhooks: [{ url: hookUrl, secret: 'bench-secret' }] }),
  });
  if (rule.status !== 201) throw new Error(`creating the rule failed: ${rule.status} ${await rule.text()}`);

  // ---- generator ----
  const perTick = Math.round((RATE * TICK_MS) / 1000);
  const ts = () => new Date().toISOString();
  let bgRun = 0;
  let bgStep = 0;
  const background = (n: number): object[] => {
    const out: object[] = [];
    for (let i = 0; i < n; i++) {
      if (bgStep === 0) out.push({ v: 1, type: 'run_start', project: PROJECT, run_id: `bg-${bgRun}`, ts: ts(), model: 'claude-sonnet-4', agent: { name: 'bench' } });
      else out.push({ v: 1, type: 'step', project: PROJECT, run_id: `bg-${bgRun}`, step: bgStep - 1, ts: ts(), model: 'claude-sonnet-4', input_tokens: 1200, output_tokens: 80, action: `edit file_${bgStep}.py line ${bgRun}`, observation: `ok ${bgRun}.${bgStep}` });
      if (++bgStep > 40) {
        out.push({ v: 1, type: 'run_end', project: PROJECT, run_id: `bg-${bgRun}`, ts: ts(), status: 'success' });
        i++;
        bgStep = 0;
        bgRun++;
      }
    }
    return out;
  };
  /** Events of loop run k due at its phase (0: start + two distinct steps, 1: two repeats, 2: the closing repeat). */
  const loopEvents = (k: number, phase: number): object[] => {
    const run_id = `loop-${k}`;
    const step = (n: number, action: string, observation: string) => ({ v: 1, type: 'step', project: PROJECT, run_id, step: n, ts: ts(), model: 'claude-sonnet-4', input_tokens: 900, output_tokens: 40, action, observation });
    if (phase === 0) return [{ v: 1, type: 'run_start', project: PROJECT, run_id, ts: ts(), model: 'claude-sonnet-4', agent: { name: 'bench' } }, step(0, 'ls', 'a b'), step(1, 'cat a', 'x')];
    if (phase === 1) return [step(2, 'pytest -x', 'FAILED test_a'), step(3, 'pytest -x', 'FAILED test_a')];
    return [step(4, 'pytest -x', 'FAILED test_a')];
  };

  const ticksPerLoop = Math.max(1, Math.round(EVERY_MS / TICK_MS));
  const loopTicks = LOOPS * ticksPerLoop + 3;
  const warmupTicks = 20;
  let sent = 0;
  let failed = 0;
  const inFlight = new Set<Promise<void>>();
  const t0 = performance.now();
  for (let tick = 0; tick < warmupTicks + loopTicks; tick++) {
    const due = t0 + tick * TICK_MS;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const batch: object[] = [];
    let closes: string[] = [];
    if (tick >= warmupTicks) {
      const t = tick - warmupTicks;
      for (let phase = 0; phase < 3; phase++) {
        const k = (t - phase) / ticksPerLoop;
        if (Number.isInteger(k) && k >= 0 && k < LOOPS) {
          batch.push(...loopEvents(k, phase));
          if (phase === 2) closes.push(`loop-${k}`);
        }
      }
    }
    batch.push(...background(perTick - batch.length));
    while (inFlight.size >= 8) await Promise.race(inFlight);
    const body = batch.map((e) => JSON.stringify(e)).join('\n');
    const start = performance.now();
    for (const id of closes) closedAt.set(id, start);
    const closing = closes;
    closes = [];
    const p: Promise<void> = fetch(`${base}/v1/events?ack=${ACK}`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body })
      .then(async (res) => {
        await res.arrayBuffer();
        for (const id of closing) storedAt.set(id, performance.now());
        if (res.status >= 300) failed += batch.length;
        else sent += batch.length;
      })
      .catch(() => {
        failed += batch.length;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - t0) / 1000;
  const until = performance.now() + 15_000;
  while (seen.size < LOOPS && performance.now() < until) await new Promise((r) => setTimeout(r, 50));

  const sorted = [...latencies].sort((a, b) => a - b);
  const ms = (v: number) => `${Math.round(v)} ms`;
  console.log(`ack=${ACK}; events sent: ${sent} in ${elapsed.toFixed(1)} s (${Math.round(sent / elapsed)} events/s, offered ${RATE}/s; ${failed} not accepted)`);
  console.log(`loops: ${LOOPS}, dead_loop webhooks received: ${latencies.length}`);
  if (sorted.length) {
    console.log(`closing step sent → webhook arrival: p50 ${ms(quantile(sorted, 0.5))}, p95 ${ms(quantile(sorted, 0.95))}, max ${ms(sorted[sorted.length - 1])}, min ${ms(sorted[0])}`);
  }
  if (afterStored.length) {
    const a = [...afterStored].sort((x, y) => x - y);
    console.log(`closing step stored (POST answered) → webhook arrival: p50 ${ms(quantile(a, 0.5))}, p95 ${ms(quantile(a, 0.95))}, max ${ms(a[a.length - 1])}`);
  }
  if (latencies.length < LOOPS) exitCode = 1;
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
