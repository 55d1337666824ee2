// GET /api/v1/runs/:run_id/steps/index and /steps (the trajectory viewer's outline and step
// windows) and the runs list's search and loop sort, against the real embedded engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, postEvents, removeDataDir, startTestServer, type TestServer } from '../helpers/test-server.js';
import { isLongRunErrorStep, longRunEvents, LONG_RUN_LOOP_LENGTH, postInChunks } from '../browser/long-run.js';

let srv: TestServer;
const STEPS = 600;
const now = new Date();

beforeAll(async () => {
  srv = await startTestServer();
  await postInChunks(srv.url, longRunEvents('long-run', STEPS, now));
  // A call recorded without a step, and the same run id in a second project.
  const r = await postEvents(srv.url, [
    { type: 'tool_call', run_id: 'long-run', call_id: 'stepless', ts: now.toISOString(), tool: 'notify', arguments: {}, status: 'ok' },
    { type: 'run_start', project: 'other', run_id: 'twin', ts: now.toISOString(), model: 'm' },
    { type: 'run_start', project: 'default', run_id: 'twin', ts: now.toISOString(), model: 'm' },
  ]);
  expect(r.status).toBe(200);
});
afterAll(async () => {
  await srv.close();
  removeDataDir(srv.dataDir);
});

describe('GET /api/v1/runs/:run_id/steps/index', () => {
  it('outlines every step in order with tokens, cost, tool calls and error flags', async () => {
    const { status, body } = await getJson(srv.url, '/api/v1/runs/long-run/steps/index');
    expect(status).toBe(200);
    expect(body.project).toBe('default');
    expect(body.step).toEqual(Array.from({ length: STEPS }, (_, i) => i));
    for (const k of ['input_tokens', 'output_tokens', 'cost_usd', 'latency_ms', 'tool_calls', 'error']) expect(body[k]).toHaveLength(STEPS);
    expect(body.input_tokens[10]).toBe(2000 + ((10 * 37) % 900) + 1);
    expect(body.tool_calls.every((n: number) => n === 1)).toBe(true);
    const loopStart = STEPS - LONG_RUN_LOOP_LENGTH - 5;
    const errors = body.step.filter((_: number, i: number) => body.error[i] === 1);
    const expected = body.step.filter((s: number) => (isLongRunErrorStep(s) && !(s >= loopStart && s < loopStart + LONG_RUN_LOOP_LENGTH)) || (s >= loopStart && s < loopStart + LONG_RUN_LOOP_LENGTH));
    expect(errors).toEqual(expected);
    // The outline of 600 steps stays small: numbers only, no texts.
    expect(JSON.stringify(body).length).toBeLessThan(60_000);
  });

  it('answers 404 for an unknown run and 409 for a run id in two projects', async () => {
    expect((await getJson(srv.url, '/api/v1/runs/nope/steps/index')).status).toBe(404);
    expect((await getJson(srv.url, '/api/v1/runs/twin/steps/index')).status).toBe(409);
    expect((await getJson(srv.url, '/api/v1/runs/twin/steps/index?project=other')).status).toBe(200);
  });
});

describe('GET /api/v1/runs/:run_id/steps', () => {
  it('returns a window of steps with only their tool calls', async () => {
    const { status, body } = await getJson(srv.url, '/api/v1/runs/long-run/steps?offset=200&limit=50');
    expect(status).toBe(200);
    expect(body.offset).toBe(200);
    expect(body.steps.map((s: { step: number }) => s.step)).toEqual(Array.from({ length: 50 }, (_, i) => 200 + i));
    expect(body.steps[0].action).toContain('str_replace_editor');
    expect(body.tool_calls.map((c: { step: number }) => c.step)).toEqual(Array.from({ length: 50 }, (_, i) => 200 + i));
  });

  it('carries calls without a step in the first window only', async () => {
    const first = (await getJson(srv.url, '/api/v1/runs/long-run/steps?limit=10')).body;
    expect(first.tool_calls.map((c: { call_id: string }) => c.call_id)).toContain('stepless');
    expect(first.tool_calls).toHaveLength(11);
    const last = (await getJson(srv.url, `/api/v1/runs/long-run/steps?offset=${STEPS - 5}&limit=10`)).body;
    expect(last.steps).toHaveLength(5);
    expect(last.tool_calls.map((c: { call_id: string }) => c.call_id)).not.toContain('stepless');
  });

  it('rejects bad windows', async () => {
    expect((await getJson(srv.url, '/api/v1/runs/long-run/steps?limit=0')).status).toBe(400);
    expect((await getJson(srv.url, '/api/v1/runs/long-run/steps?limit=5000')).status).toBe(400);
    expect((await getJson(srv.url, '/api/v1/runs/long-run/steps?offset=-1')).status).toBe(400);
  });

  it('the run detail windows its tool calls the same way', async () => {
    const { body } = await getJson(srv.url, '/api/v1/runs/long-run?steps_offset=100&steps_limit=20');
    expect(body.steps).toHaveLength(20);
    expect(body.tool_calls.map((c: { step: number }) => c.step)).toEqual(Array.from({ length: 20 }, (_, i) => 100 + i));
    expect(body.steps_truncated).toBe(true);
  });
});
