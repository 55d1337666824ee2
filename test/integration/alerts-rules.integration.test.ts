// Alerting end to end through the real server (embedded ClickHouse) and real HTTP receivers on
// 127.0.0.1: rule management with write-only secrets and target checks; a streamed run entering
// a dead loop gives exactly one signed dead_loop delivery with the loop's steps; a budget
// crossing and a cost spike fire; a completion-rate drop fires and later resolves; a receiver
// failing three times gets the alert once; a receiver that never answers ends as failed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../analytics/alerts/payload.js';
import { getJson, postEvents, removeDataDir, startTestServer, type TestServer } from '../helpers/test-server.js';
import { pollUntil, startReceiver, type Receiver } from '../alerts/webhook-receiver.js';

const SECRET = 'test-secret-123';
let server: TestServer;
let ok: Receiver;
const receivers: Receiver[] = [];

beforeAll(async () => {
  server = await startTestServer({
    TRAJSCOPE_WEBHOOK_ALLOW: '127.0.0.1/32',
    TRAJSCOPE_ALERT_EVAL_MS: '300',
    TRAJSCOPE_WEBHOOK_TIMEOUT_MS: '300',
    TRAJSCOPE_WEBHOOK_MAX_ATTEMPTS: '4',
    TRAJSCOPE_WEBHOOK_RETRY_BASE_MS: '50',
    TRAJSCOPE_WEBHOOK_RETRY_MAX_MS: '200',
    TRAJSCOPE_BATCH_MAX_AGE_MS: '50',
  });
  ok = await startReceiver();
  receivers.push(ok);
});

afterAll(async () => {
  await server?.close();
  for (const r of receivers) await r.close();
  if (server) removeDataDir(server.dataDir);
});

async function send(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function createRule(rule: Record<string, unknown>, url = ok.url): Promise<any> {
  const r = await send('POST', '/api/v1/alerts/rules', { webhooks: [{ url, secret: SECRET }], ...rule });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

const forRule = (ruleId: string) => (r: { body: any }) => r.body?.rule?.id === ruleId;
const iso = (ms: number) => new Date(ms).toISOString();

/** A run that started at `start` with steps of `cost` each and an end status. */
function run(project: string, id: string, start: number, o: { cost?: number; status?: string; steps?: number; model?: string; category?: string } = {}) {
  const steps = o.steps ?? 2;
  const events: object[] = [
    { v: 1, type: 'run_start', project, run_id: id, ts: iso(start), model: o.model ?? 'm1', task: { id: 't', category: o.category ?? 'bugfix' }, agent: { name: 'a' } },
  ];
  for (let i = 0; i < steps; i++) {
    events.push({ v: 1, type: 'step', project, run_id: id, step: i, ts: iso(start + 1000 * (i + 1)), model: o.model ?? 'm1', cost_usd: (o.cost ?? 0.1) / steps, action: `act ${i}`, observation: `obs ${i}` });
  }
  if (o.status) events.push({ v: 1, type: 'run_end', project, run_id: id, ts: iso(start + 1000 * (steps + 1)), status: o.status });
  return events;
}

describe('rules API', () => {
  it('validates rules, never shows secrets, keeps them across updates, enables, disables and deletes', async () => {
    const bad = await send('POST', '/api/v1/alerts/rules', { name: '', kind: 'metric_threshold', params: { metric: 'x' }, webhooks: [] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('params.metric');
    const privateTarget = await send('POST', '/api/v1/alerts/rules', { name: 'x', kind: 'dead_loop', webhooks: [{ url: 'http://10.0.0.5/h', secret: SECRET }] });
    expect(privateTarget.status).toBe(400);
    expect(privateTarget.body.error.message).toContain('TRAJSCOPE_WEBHOOK_ALLOW');
    const metadata = await send('POST', '/api/v1/alerts/rules', { name: 'x', kind: 'dead_loop', webhooks: [{ url: 'http://169.254.169.254/latest', secret: SECRET }] });
    expect(metadata.status).toBe(400);
    const noSecret = await send('POST', '/api/v1/alerts/rules', { name: 'x', kind: 'dead_loop', webhooks: [{ url: ok.url }] });
    expect(noSecret.status).toBe(400);

    const rule = await createRule({ name: 'manage me', kind: 'metric_threshold', params: { metric: 'cost_usd', op: '>', value: 1e9 }, filters: { project: 'nobody' } });
    expect(JSON.stringify(rule)).not.toContain(SECRET);
    expect(rule.webhooks[0]).toMatchObject({ url: ok.url, format: 'json', has_secret: true });
    const listed = await getJson(server.url, '/api/v1/alerts/rules');
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
    expect(listed.body.rules.map((r: any) => r.id)).toContain(rule.id);

    // An update naming the webhook's id keeps its secret; the test delivery is signed with it.
    const updated = await send('PUT', `/api/v1/alerts/rules/${rule.id}`, {
      name: 'managed', kind: 'metric_threshold', params: { metric: 'cost_usd', op: '>', value: 1e9 }, filters: { project: 'nobody' },
      webhooks: [{ id: rule.webhooks[0].id, url: ok.url }],
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'managed', webhooks: [{ id: rule.webhooks[0].id, has_secret: true }] });
    const test = await send('POST', `/api/v1/alerts/rules/${rule.id}/test`, {});
    expect(test.status).toBe(202);
    const [got] = await ok.waitFor(1, forRule(rule.id));
    expect(got.body).toMatchObject({ type: 'alert.test', status: 'test', rule: { id: rule.id, name: 'managed' } });
    expect(verifySignature(SECRET, got.raw, got.headers['x-trajscope-timestamp'] as string, got.headers['x-trajscope-signature'] as string, Math.floor(Date.now() / 1000))).toBe(true);
    expect(got.headers['x-trajscope-delivery']).toBe(test.body.deliveries[0]);

    expect((await send('POST', `/api/v1/alerts/rules/${rule.id}/disable`)).body.enabled).toBe(false);
    expect((await send('POST', `/api/v1/alerts/rules/${rule.id}/enable`)).body.enabled).toBe(true);
    expect((await send('DELETE', `/api/v1/alerts/rules/${rule.id}`)).status).toBe(204);
    expect((await getJson(server.url, `/api/v1/alerts/rules/${rule.id}`)).status).toBe(404);
  });
});

describe('live rules', () => {
  it('a streamed run entering a dead loop gives exactly one signed dead_loop delivery with the loop steps', async () => {
    const rule = await createRule({ name: 'dead loops', kind: 'dead_loop', severity: 'critical', cooldown_s: 3600, filters: { project: 'p-loop', model: 'm-loop' } });
    const other = await createRule({ name: 'other project', kind: 'dead_loop', filters: { project: 'elsewhere' } });
    const t0 = Date.now();
    const ev = (e: object) => ({ v: 1, project: 'p-loop', run_id: 'looping', ...e });
    expect((await postEvents(server.url, [ev({ type: 'run_start', ts: iso(t0), model: 'm-loop', agent: { name: 'fixer' }, task: { id: 't1', category: 'bugfix' } })])).status).toBe(200);
    // Streamed one step at a time: two distinct steps, then the same failing test run again and again.
    const step = (i: number, action: string, observation: string) =>
      ev({ type: 'step', step: i, ts: iso(t0 + i * 100), model: 'm-loop', cost_usd: 0.05, action, observation, ...(observation.startsWith('FAIL') ? { error: { type: 'TestFailure', message: 'exit 1' } } : {}) });
    await postEvents(server.url, [step(0, 'ls', 'src tests')]);
    await postEvents(server.url, [step(1, 'cat src/app.py', 'def main(): ...')]);
    for (let i = 2; i <= 5; i++) await postEvents(server.url, [step(i, 'pytest -x', 'FAILED tests/test_app.py::test_main')]);
    const [got] = await ok.waitFor(1, forRule(rule.id));
    // The loop keeps going and a second loop starts in the same run: still one delivery (cooldown).
    for (let i = 6; i <= 8; i++) await postEvents(server.url, [step(i, 'pytest -x', 'FAILED tests/test_app.py::test_main')]);
    for (let i = 9; i <= 14; i++) await postEvents(server.url, [step(i, i % 2 ? 'edit a' : 'edit b', i % 2 ? 'ok a' : 'ok b')]);
    await server.services.liveLoops.flush();
    await server.services.alerts.idle();
    const signals = await server.services.storage.query<{ n: string }>(`SELECT count() AS n FROM signals FINAL WHERE run_id = 'looping'`);
    expect(Number(signals[0].n)).toBe(2);
    expect(ok.received.filter(forRule(rule.id))).toHaveLength(1);
    expect(ok.received.filter(forRule(other.id))).toHaveLength(0);

    expect(verifySignature(SECRET, got.raw, got.headers['x-trajscope-timestamp'] as string, got.headers['x-trajscope-signature'] as string, Math.floor(Date.now() / 1000))).toBe(true);
    expect(got.headers['x-trajscope-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(got.body).toMatchObject({
      type: 'alert.firing', kind: 'dead_loop', severity: 'critical', status: 'firing', key: 'run:p-loop/looping',
      run: { project: 'p-loop', run_id: 'looping', model: 'm-loop', agent: 'fixer', task_category: 'bugfix' },
      loop: { kind: 'repeat', first_step: 2, last_step: 4, repetitions: 3 },
    });
    expect(got.body.loop.steps).toEqual([2, 3, 4].map((s) => ({ step: s, action: 'pytest -x', observation: 'FAILED tests/test_app.py::test_main', error: 'TestFailure: exit 1' })));
    expect(got.body.url).toMatch(/\/runs\/looping\?project=p-loop$/);

    const firings = await getJson(server.url, `/api/v1/alerts/firings?rule_id=${rule.id}`);
    expect(firings.body.firings).toHaveLength(1);
    const deliveries = await pollUntil(() => getJson(server.url, `/api/v1/alerts/deliveries?rule_id=${rule.id}`), (r) => r.body.deliveries[0]?.state === 'delivered');
    expect(deliveries.body.deliveries[0]).toMatchObject({ state: 'delivered', attempts: 1, attempt_log: [{ attempt: 1, outcome: 'delivered', status_code: 200 }] });
  });

  it('fires when a running run passes an amount or its budget', async () => {
    const amount = await createRule({ name: 'over $1', kind: 'run_cost_over', params: { amount_usd: 1 }, filters: { project: 'p-cost' } });
    const budget = await createRule({ name: 'over budget', kind: 'run_cost_over', params: { budget_fraction: 1 }, filters: { project: 'p-cost' } });
    const t0 = Date.now();
    const ev = (e: object) => ({ v: 1, project: 'p-cost', run_id: 'pricey', ...e });
    await postEvents(server.url, [ev({ type: 'run_start', ts: iso(t0), model: 'm1', budget_usd: 0.7 })]);
    for (let i = 0; i < 5; i++) await postEvents(server.url, [ev({ type: 'step', step: i, ts: iso(t0 + i), cost_usd: 0.4, action: `step ${i}`, observation: `${i}` })]);
    const [overBudget] = await ok.waitFor(1, forRule(budget.id));
    const [overAmount] = await ok.waitFor(1, forRule(amount.id));
    expect(overBudget.body).toMatchObject({ kind: 'run_cost_over', key: 'run:p-cost/pricey', values: { cost_usd: 0.8, limit_usd: 0.7, budget_usd: 0.7, step: 1 } });
    expect(overAmount.body).toMatchObject({ kind: 'run_cost_over', values: { cost_usd: 1.2, limit_usd: 1, step: 2 } });
    await server.services.alerts.idle();
    expect(ok.received.filter(forRule(amount.id))).toHaveLength(1);
  });
});

describe('window rules', () => {
  it('a cost spike fires once for the outlying run', async () => {
    const rule = await createRule({ name: 'spikes', kind: 'cost_spike', params: { window_s: 86400 }, filters: { project: 'p-spike' } });
    const t0 = Date.now() - 600_000;
    const events = [];
    for (let i = 0; i < 24; i++) events.push(...run('p-spike', `normal-${i}`, t0 + i * 1000, { cost: 1 + (i % 5) * 0.02, status: 'success' }));
    events.push(...run('p-spike', 'spike', t0 + 30_000, { cost: 25, status: 'success' }));
    expect((await postEvents(server.url, events)).body.rejected).toEqual([]);
    const [got] = await ok.waitFor(1, forRule(rule.id));
    expect(got.body).toMatchObject({ kind: 'cost_spike', key: 'run:p-spike/spike', run: { run_id: 'spike' }, values: { cost_usd: 25, cohort_runs: 25 } });
    expect(got.body.values.z).toBeGreaterThan(3.5);
    // Later evaluations do not fire it again.
    await send('POST', '/api/v1/alerts/evaluate');
    await send('POST', '/api/v1/alerts/evaluate');
    expect(ok.received.filter(forRule(rule.id))).toHaveLength(1);
  });

  it('a completion-rate drop fires, then resolves when the rate recovers', async () => {
    const rule = await createRule({
      name: 'completion drop', kind: 'completion_rate_drop', severity: 'critical',
      params: { window_s: 3600, baseline_s: 86400, min_drop: 0.15, min_runs: 20 }, filters: { project: 'p-drop' },
    });
    const now = Date.now();
    const baseline = [];
    for (let i = 0; i < 40; i++) baseline.push(...run('p-drop', `base-${i}`, now - 3 * 3600_000 + i * 1000, { status: i < 36 ? 'success' : 'failure' }));
    expect((await postEvents(server.url, baseline)).body.rejected).toEqual([]);
    const recent = [];
    for (let i = 0; i < 20; i++) recent.push(...run('p-drop', `recent-${i}`, now - 600_000 + i * 1000, { status: i < 6 ? 'success' : 'failure' }));
    expect((await postEvents(server.url, recent)).body.rejected).toEqual([]);
    const [fired] = await ok.waitFor(1, forRule(rule.id));
    expect(fired.body).toMatchObject({ type: 'alert.firing', kind: 'completion_rate_drop', key: '*', values: { completion_rate: 0.3, baseline_rate: 0.9, ended: 20, baseline_ended: 40 } });
    expect(fired.body.cohort.filters.project).toEqual(['p-drop']);
    // Many successful runs later, the window's rate is back near the baseline.
    const recovered = [];
    for (let i = 0; i < 80; i++) recovered.push(...run('p-drop', `ok-${i}`, now - 300_000 + i * 1000, { status: 'success' }));
    expect((await postEvents(server.url, recovered)).body.rejected).toEqual([]);
    const [, resolved] = await ok.waitFor(2, forRule(rule.id));
    expect(resolved.body).toMatchObject({ type: 'alert.resolved', status: 'resolved', key: '*', values: { ended: 100, completion_rate: 0.86 } });
    await send('POST', '/api/v1/alerts/evaluate');
    expect(ok.received.filter(forRule(rule.id))).toHaveLength(2);
    const firings = await getJson(server.url, `/api/v1/alerts/firings?rule_id=${rule.id}`);
    expect(firings.body.firings.map((f: any) => f.status)).toEqual(['resolved', 'firing']);
  });

  it('an error signature fires when it is new in more runs than allowed, and a known one when it grows over its baseline', async () => {
    const rule = await createRule({
      name: 'new errors', kind: 'error_signature',
      params: { window_s: 3600, new_min_runs: 2, growth_factor: 3, baseline_s: 86400, min_runs: 2 }, filters: { project: 'p-sig' },
    });
    const now = Date.now();
    const failing = (id: string, start: number, message: string) => [
      { v: 1, type: 'run_start', project: 'p-sig', run_id: id, ts: iso(start), model: 'm1', task: { id: 't' } },
      { v: 1, type: 'tool_call', project: 'p-sig', run_id: id, step: 0, call_id: `${id}-c`, ts: iso(start + 1000), tool: 'book', arguments: {}, status: 'error', error: { type: 'E', message } },
      { v: 1, type: 'run_end', project: 'p-sig', run_id: id, ts: iso(start + 2000), status: 'failure' },
    ];
    const events: object[] = [];
    // Known for a day: one "payment" error 10 h ago; in the last hour, three runs with it (3 per hour against 1 per day: 72×).
    events.push(...failing('old-pay', now - 10 * 3600_000, 'Error: payment method gift_card_1 not found'));
    for (let i = 0; i < 3; i++) events.push(...failing(`pay-${i}`, now - 600_000 + i * 1000, `Error: payment method gift_card_${i + 2} not found`));
    // New in the window: a flight error in two runs (not more than 2: quiet), then a third.
    for (let i = 0; i < 2; i++) events.push(...failing(`flight-${i}`, now - 500_000 + i * 1000, `Error: flight HAT00${i} not available on date 2024-05-13`));
    expect((await postEvents(server.url, events)).body.rejected).toEqual([]);
    const [grown] = await ok.waitFor(1, forRule(rule.id));
    expect(grown.body).toMatchObject({
      type: 'alert.firing', kind: 'error_signature',
      values: { template: 'Error: payment method <n> not found', reason: 'growth', runs: 3, occurrences: 3, baseline_occurrences: 1, factor: 72 },
    });
    expect(grown.body.key).toBe(`signature=${grown.body.values.signature}`);
    await send('POST', '/api/v1/alerts/evaluate');
    expect(ok.received.filter(forRule(rule.id))).toHaveLength(1);
    expect((await postEvents(server.url, failing('flight-2', now - 400_000, 'Error: flight HAT777 not available on date 2024-05-14'))).body.rejected).toEqual([]);
    const [, fresh] = await ok.waitFor(2, forRule(rule.id));
    expect(fresh.body).toMatchObject({ kind: 'error_signature', values: { template: 'Error: flight <n> not available on date <time>', reason: 'new', runs: 3 } });
    expect(fresh.body.summary).toBe('new error in 3 runs over the last hour: Error: flight <n> not available on date <time>');
  });
});

describe('delivery', () => {
  it('a receiver that fails three times then succeeds gets the alert once', async () => {
    const flaky = await startReceiver((n) => (n <= 3 ? 500 : 200));
    receivers.push(flaky);
    const rule = await createRule({ name: 'flaky', kind: 'run_cost_over', params: { amount_usd: 0.5 }, filters: { project: 'p-flaky' } }, flaky.url);
    const t0 = Date.now();
    await postEvents(server.url, run('p-flaky', 'r1', t0, { cost: 1, steps: 2 }));
    await flaky.waitFor(4);
    const d = await pollUntil(() => getJson(server.url, `/api/v1/alerts/deliveries?rule_id=${rule.id}`), (r) => r.body.deliveries[0]?.state === 'delivered');
    expect(flaky.accepted()).toHaveLength(1);
    expect(new Set(flaky.received.map((r) => r.headers['x-trajscope-delivery'])).size).toBe(1);
    expect(flaky.received.map((r) => r.headers['x-trajscope-attempt'])).toEqual(['1', '2', '3', '4']);
    expect(new Set(flaky.received.map((r) => r.raw)).size).toBe(1); // the same body every time
    expect(d.body.deliveries[0].attempt_log.map((a: any) => [a.outcome, a.status_code])).toEqual([
      ['retry', 500], ['retry', 500], ['retry', 500], ['delivered', 200],
    ]);
  });

  it('a receiver that never answers ends as failed after the retries', async () => {
    const silent = await startReceiver(() => 'hang');
    receivers.push(silent);
    const rule = await createRule({ name: 'silent', kind: 'dead_loop', filters: { project: 'nobody' } }, silent.url);
    const test = await send('POST', `/api/v1/alerts/rules/${rule.id}/test`, {});
    const d = await pollUntil(
      () => getJson(server.url, `/api/v1/alerts/deliveries?firing_id=&rule_id=${rule.id}`),
      (r) => r.body.deliveries[0]?.state === 'failed',
    );
    const delivery = d.body.deliveries[0];
    expect(delivery.delivery_id).toBe(test.body.deliveries[0]);
    expect(delivery).toMatchObject({ state: 'failed', attempts: 4, last_error: 'no answer within 300 ms' });
    expect(delivery.attempt_log.map((a: any) => a.outcome)).toEqual(['retry', 'retry', 'retry', 'failed']);
    expect(silent.received).toHaveLength(4);
  });
});
