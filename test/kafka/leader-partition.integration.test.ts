// A leader cut off without dying: two `trajscope serve` processes of one deployment against the
// real broker; the leader is frozen (SIGSTOP: no heartbeat, no timer, as a process on the far
// side of a partition) while a webhook delivery of its window firing hangs at the receiver
// (127.0.0.1). The other takes over within the session timeout and delivers that firing; when
// the frozen one runs again its retry timer is already due, and it must not send the firing a
// second time: it finds its heartbeats stale and steps down before any work (whoever the group
// makes leader afterwards).
import { afterAll, describe, expect, it } from 'vitest';
import { pollUntil, startReceiver, type Receiver } from '../alerts/webhook-receiver.js';
import { newDataDir, removeDataDir } from '../helpers/test-server.js';
import { BROKER, uniqueTopic } from './kafka-test-helpers.js';
import { copyDataDir, deploymentEnv, hangFirstDeliveryOf, leaders, oneRun, oneStableLeader, postJson, readyLeader, ruleOf, serveChild, type Member } from './leader-cluster.js';

const SESSION_MS = 6_000;
const topic = uniqueTopic('leader-partition');
const members: Member[] = [];
const dirs: string[] = [];
let receiver: Receiver | undefined;

const deployment = {
  ...deploymentEnv(BROKER, topic, SESSION_MS),
  TRAJSCOPE_ALERT_EVAL_MS: '500',
  TRAJSCOPE_WEBHOOK_ALLOW: '127.0.0.1/32',
  // The hung attempt times out while its process is frozen: its retry is due the moment it runs.
  TRAJSCOPE_WEBHOOK_TIMEOUT_MS: '2000',
  TRAJSCOPE_WEBHOOK_RETRY_BASE_MS: '200',
  TRAJSCOPE_WEBHOOK_RETRY_MAX_MS: '500',
};

afterAll(async () => {
  for (const m of members) {
    m.serve.child.kill('SIGCONT');
    if (m.alive) m.serve.child.kill('SIGKILL');
  }
  await Promise.all(members.map((m) => m.serve.stop(5_000).catch(() => null)));
  await receiver?.close();
  for (const d of dirs) removeDataDir(d);
}, 60_000);


describe('a leader partitioned away', () => {
  it('is replaced within the session timeout and, running again, steps down without repeating its work', async () => {
    receiver = await startReceiver(hangFirstDeliveryOf('cut'));
    const seedDir = newDataDir();
    dirs.push(seedDir);
    const seed = await serveChild({ TRAJSCOPE_DATA_DIR: seedDir, TRAJSCOPE_WEBHOOK_ALLOW: '127.0.0.1/32' });
    const res = await postJson(`${seed.url}/api/v1/alerts/rules`, {
      name: 'cut', kind: 'metric_threshold', filters: { project: 'cut' }, cooldown_s: 0,
      params: { metric: 'runs', op: '>=', value: 1, window_s: 3600 },
      webhooks: [{ url: receiver.url, secret: 'partition-secret' }],
    });
    expect(res.status).toBe(201);
    expect(await seed.stop()).toBe(0);
    const started = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const dataDir = copyDataDir(seedDir);
        dirs.push(dataDir);
        return { name, dataDir, serve: await serveChild({ ...deployment, TRAJSCOPE_DATA_DIR: dataDir }, ['--no-ingest']), alive: true };
      }),
    );
    members.push(...started);
    const leader = await oneStableLeader(members, 60_000);
    const other = members.find((m) => m !== leader)!;
    const frozenEpoch = (await readyLeader(leader))!.epoch!;

    // The rule holds in both processes' data; the leader fires, and its delivery hangs.
    await Promise.all(members.map((m) => postJson(`${m.serve.url}/v1/events`, oneRun('cut', 'run-cut')).then((r) => expect(r.status).toBeLessThan(300))));
    const [first] = await receiver.waitFor(1, (r) => ruleOf(r) === 'cut', 30_000);

    // Frozen: the other leads once the broker expels the frozen member, and sends the firing.
    const frozenAt = Date.now();
    leader.serve.child.kill('SIGSTOP');
    leader.alive = false; // it answers no request while frozen
    const next = await pollUntil(() => leaders([other]), (l) => l.length === 1, 45_000, 'the other process leads');
    const takeOverMs = Date.now() - frozenAt;
    console.log(`leader frozen (SIGSTOP): the other led after ${takeOverMs} ms (session timeout ${SESSION_MS} ms)`);
    expect(next[0].name).toBe(other.name);
    expect(takeOverMs).toBeLessThan(SESSION_MS + 15_000);
    await pollUntil(async () => receiver!.accepted().filter((r) => ruleOf(r) === 'cut'), (a) => a.length === 1, 30_000, 'the firing accepted');

    // Running again: its hung attempt has timed out and its retry is due; it steps down first.
    leader.serve.child.kill('SIGCONT');
    leader.alive = true;
    await pollUntil(() => Promise.resolve(leader.serve.output()), (o) => /no longer leads/.test(o), 30_000, 'the frozen process steps down');
    await new Promise((r) => setTimeout(r, 5_000)); // retries every 200-500 ms: ten of them would have gone out
    const cut = receiver.received.filter((r) => ruleOf(r) === 'cut');
    expect(cut.map((r) => r.body.id)).toEqual([first.body.id, first.body.id]); // the hung attempt, and the other's
    expect(receiver.accepted().filter((r) => ruleOf(r) === 'cut')).toHaveLength(1);
    // Then one leads (the group may give the lead back to the process that rejoined), under an
    // epoch later than the frozen one's.
    const now = await oneStableLeader(members, 30_000);
    expect((await readyLeader(now))!.epoch!).toBeGreaterThan(frozenEpoch);
  }, 180_000);
});
