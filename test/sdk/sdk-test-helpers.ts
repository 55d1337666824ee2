// Helpers of the SDK tests: a free loopback port, the runs of a project as the API lists them,
// and the agent run the tests send (N steps, each with a tool call).
import { createServer } from 'node:net';
import type { RunSummary } from '../../schemas/api.js';
import type { TrajscopeClient } from '../../sdk/src/index.js';
import { getJson } from '../helpers/test-server.js';

/** A port nothing listens on right now (the OS picks it, then it is released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Every run of `project` (GET /api/v1/runs, all pages). */
export async function listRuns(base: string, project: string): Promise<RunSummary[]> {
  const runs: RunSummary[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const q = new URLSearchParams({ project, limit: '1000', ...(cursor ? { cursor } : {}) });
    const { status, body } = await getJson(base, `/api/v1/runs?${q}`);
    if (status !== 200) throw new Error(`GET /api/v1/runs answered ${status}: ${JSON.stringify(body)}`);
    runs.push(...body.runs);
    cursor = body.next_cursor;
    if (!cursor) break;
  }
  return runs;
}

/** Records a run of `steps` steps, each with one tool call, then its end; `pause` between calls. */
export async function agentRun(
  ts: TrajscopeClient,
  runId: string,
  steps: number,
  pause: () => Promise<void> = async () => {},
): Promise<void> {
  const run = ts.startRun({ runId, agent: { name: 'sdk-test', version: '1' }, model: 'gpt-4o', task: { id: runId, category: 'sdk' } });
  for (let i = 0; i < steps; i++) {
    run.step({ inputTokens: 100 + i, outputTokens: 10, action: `bash {"cmd":"echo ${i}"}`, observation: String(i) });
    run.toolCall({ tool: 'bash', arguments: { cmd: `echo ${i}` }, output: String(i), status: i % 4 === 3 ? 'error' : 'ok' });
    await pause();
  }
  run.endRun({ status: 'success', reward: 1 });
}
