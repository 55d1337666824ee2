// The TypeScript SDK while the server is down, then up on the same port: the agent's calls return
// at once and never throw, nothing within the queue bound is lost, and what exceeds the bound is
// dropped and counted.
import { afterAll, expect, it } from 'vitest';
import { TrajscopeClient, type TrajscopeError } from '../../sdk/src/index.js';
import { removeDataDir, startTestServer, type TestServer } from '../helpers/test-server.js';
import { agentRun, freePort, listRuns } from './sdk-test-helpers.js';

let srv: TestServer | undefined;
afterAll(async () => {
  await srv?.close();
  if (srv) removeDataDir(srv.dataDir);
});

it('a server that is down, then up, loses nothing within the queue bound; the agent is never blocked', async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const opts = { url, flushIntervalMs: 20, initialBackoffMs: 50, maxBackoffMs: 400, flushOnExit: false };
  const ts = new TrajscopeClient({ ...opts, project: 'sdk-ts-outage', batchSize: 100, maxQueueSize: 2_000 });
  const dropped: TrajscopeError[] = [];
  const small = new TrajscopeClient({ ...opts, project: 'sdk-ts-overflow', maxQueueSize: 100, onError: (e) => dropped.push(e) });

  // 20 concurrent agents record their whole runs while nothing listens on the port: every call
  // returns (these awaits finish before any server exists) and none throws.
  await Promise.all(Array.from({ length: 20 }, (_, i) => agentRun(ts, `out-${i}`, 10, () => new Promise((r) => setImmediate(r)))));
  await agentRun(small, 'over-1', 80);
  expect(ts.stats()).toMatchObject({ enqueued: 20 * 22, sent: 0, dropped: 0, pending: 20 * 22 });
  // The bounded queue kept the first 100 events of the 162 and dropped the rest, counted.
  expect(small.stats()).toMatchObject({ enqueued: 100, dropped: 62, sent: 0, pending: 100 });
  expect(dropped.length).toBe(62);
  expect(new Set(dropped.map((e) => e.kind))).toEqual(new Set(['dropped']));
  // The sender keeps retrying the connection refusals.
  for (let i = 0; i < 200 && ts.stats().retries < 2; i++) await new Promise((r) => setTimeout(r, 25));
  expect(ts.stats().retries).toBeGreaterThanOrEqual(2);
  expect(await ts.flush(100)).toBe(false);

  srv = await startTestServer({ TRAJSCOPE_PORT: String(port) });
  expect(srv.url).toBe(url);
  expect(await ts.flush(30_000)).toBe(true);
  expect(await small.flush(30_000)).toBe(true);
  expect(ts.stats()).toMatchObject({ sent: 20 * 22, dropped: 0, failed: 0, rejected: 0, pending: 0 });
  expect(small.stats()).toMatchObject({ sent: 100, dropped: 62, failed: 0, pending: 0 });

  const runs = await listRuns(url, 'sdk-ts-outage');
  expect(runs).toHaveLength(20);
  for (const r of runs) expect(r).toMatchObject({ status: 'success', steps: 10, tool_calls: 10 });
  // run_start, then 49 (step, tool call) pairs and the 50th step: the first 100 events.
  const [over] = await listRuns(url, 'sdk-ts-overflow');
  expect(over).toMatchObject({ run_id: 'over-1', steps: 50, tool_calls: 49, status: 'running' });

  await ts.shutdown();
  await small.shutdown();
});
