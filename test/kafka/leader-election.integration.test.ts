// One leader for the singleton work, elected through Kafka: three `trajscope serve` processes
// (child processes, each on its own embedded data folder) of one deployment (same broker,
// control topic and group). Exactly one runs the window rules and the outbox; after `kill -9`
// of the leader another takes over within the session timeout, and every window firing reaches
// the webhook receiver (127.0.0.1) accepted exactly once: the one the old leader had in flight
// when it died is sent by the new leader (same firing id), and the new leader neither fires again
// what its predecessor fired nor misses what fires during the hand-over.
import { afterAll, describe, expect, it } from 'vitest';
import { pollUntil, startReceiver, type Received, type Receiver } from '../alerts/webhook-receiver.js';
import { removeDataDir, newDataDir } from '../helpers/test-server.js';
import { BROKER, uniqueTopic } from './kafka-test-helpers.js';
import { copyDataDir, deploymentEnv, hangFirstDeliveryOf, leaders, oneRun, oneStableLeader, postJson, readyLeader, ruleOf, serveChild, type Member } from './leader-cluster.js';

const SESSION_MS = 6_000;
const EVAL_MS = 500;
const SECRET = 'leader-secret-1';
const topic = uniqueTopic('leader');
const members: Member[] = [];
const dirs: string[] = [];
let receiver: Receiver | undefined;

const deployment = deploymentEnv(BROKER, topic, SESSION_MS);
const alerting = {
  TRAJSCOPE_ALERT_EVAL_MS: String(EVAL_MS),
  TRAJSCOPE_WEBHOOK_ALLOW: '127.0.0.1/32',
  // The attempt the receiver never answers stays in flight until its process is killed.
  TRAJSCOPE_WEBHOOK_TIMEOUT_MS: '60000',
  TRAJSCOPE_WEBHOOK_RETRY_BASE_MS: '200',
  TRAJSCOPE_WEBHOOK_RETRY_MAX_MS: '1000',
};

afterAll(async () => {
  for (const m of members) if (m.alive) m.serve.child.kill('SIGKILL');
  await Promise.all(members.map((m) => m.serve.stop(5_000).catch(() => null)));
  await receiver?.close();
  for (const d of dirs) removeDataDir(d);
}, 60_000);

const keyOf = (r: Received): string => String(r.headers['idempotency-key'] ?? '');

describe('leader election of the singleton work', () => {
  it('runs the window rules in exactly one process, hands over on kill -9 within the session timeout, and delivers each firing once', async () => {
    // The first delivery of rule "early" is never answered: it is in flight when its leader dies.
    receiver = await startReceiver(hangFirstDeliveryOf('early'));

    // The same rules (same ids, same webhook ids) in every process: made once, then the folder copied.
    const seedDir = newDataDir();
    dirs.push(seedDir);
    const seed = await serveChild({ ...alerting, TRAJSCOPE_DATA_DIR: seedDir });
    for (const project of ['early', 'late']) {
      const res = await postJson(`${seed.url}/api/v1/alerts/rules`, {
        name: project, kind: 'metric_threshold', filters: { project }, cooldown_s: 0,
        params: { metric: 'runs', op: '>=', value: 1, window_s: 3600 },
        webhooks: [{ url: receiver.url, secret: SECRET }],
      });
      expect(res.status).toBe(201);
    }
    expect(await seed.stop()).toBe(0);

    const started = await Promise.all(
      ['a', 'b', 'c'].map(async (name) => {
        const dataDir = copyDataDir(seedDir);
        dirs.push(dataDir);
        return { name, dataDir, serve: await serveChild({ ...deployment, ...alerting, TRAJSCOPE_DATA_DIR: dataDir }, ['--no-ingest']), alive: true };
      }),
    );
    members.push(...started);

    // Exactly one leads, and says so in /readyz with its epoch; the others say they do not.
    const first = await oneStableLeader(members, 60_000);
    let firstEpoch = -1;
    for (const m of members) {
      const lead = await readyLeader(m);
      if (m === first) {
        expect(lead).toEqual({ alerts: true, epoch: expect.any(Number) });
        firstEpoch = lead!.epoch!;
      } else expect(lead).toEqual({ alerts: false, epoch: null });
    }

    // Rule "early" holds in every process's data; only the leader evaluates it: one request.
    await Promise.all(members.map((m) => postJson(`${m.serve.url}/v1/events`, oneRun('early', 'run-early')).then((r) => expect(r.status).toBeLessThan(300))));
    const [hung] = await receiver.waitFor(1, (r) => ruleOf(r) === 'early', 30_000);
    await new Promise((r) => setTimeout(r, 6 * EVAL_MS));
    expect(receiver.received.filter((r) => ruleOf(r) === 'early')).toHaveLength(1);
    expect(keyOf(hung)).toBe(hung.body.id);

    // kill -9 of the leader; rule "late" starts to hold in the survivors' data during the hand-over.
    const leader = await oneStableLeader(members, 30_000, 2);
    const killedAt = Date.now();
    leader.serve.child.kill('SIGKILL');
    leader.alive = false;
    const survivors = members.filter((m) => m.alive);
    await Promise.all(survivors.map((m) => postJson(`${m.serve.url}/v1/events`, oneRun('late', 'run-late')).then((r) => expect(r.status).toBeLessThan(300))));
    const next = await pollUntil(() => leaders(survivors), (l) => l.length > 0, 45_000, 'a survivor leads');
    const handOverMs = Date.now() - killedAt;
    console.log(`leader hand-over after kill -9: ${handOverMs} ms (session timeout ${SESSION_MS} ms)`);
    expect(next).toHaveLength(1);
    // Within the session timeout plus the rebalance (bounded generously for a loaded machine).
    expect(handOverMs).toBeLessThan(SESSION_MS + 15_000);
    const second = await oneStableLeader(survivors, 30_000);
    expect(second.name).toBe(next[0].name);

    // The firing in flight is sent by the new leader under the same id; "late" fires once.
    await pollUntil(
      async () => receiver!.accepted(),
      (a) => a.some((r) => ruleOf(r) === 'early') && a.some((r) => ruleOf(r) === 'late'),
      30_000,
      'both firings accepted',
    );
    await new Promise((r) => setTimeout(r, 6 * EVAL_MS));
    const accepted = receiver.accepted();
    const early = accepted.filter((r) => ruleOf(r) === 'early');
    const late = accepted.filter((r) => ruleOf(r) === 'late');
    expect(early).toHaveLength(1);
    expect(late).toHaveLength(1);
    expect(keyOf(early[0])).toBe(keyOf(hung));
    expect(early[0].body.id).toBe(hung.body.id);
    expect(receiver.received.filter((r) => ruleOf(r) === 'late')).toHaveLength(1);
    // No firing id accepted twice.
    const keys = accepted.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
    const now = await oneStableLeader(members, 30_000, 2);
    const lead = await readyLeader(now);
    expect(lead).toEqual({ alerts: true, epoch: expect.any(Number) });
    // A later lead has a larger epoch (its marker comes after the first leader's).
    expect(lead!.epoch!).toBeGreaterThan(firstEpoch);
    expect(now.serve.output()).toMatch(new RegExp(`leader election: this process leads \\(epoch ${lead!.epoch}`));
  }, 240_000);
});
