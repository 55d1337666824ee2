// kill -9 of a `trajscope ingest` worker in the middle of a stream of 200,000 events, then a
// restart: exactly 200,000 steps stored. The worker is a child process that owns its embedded
// data folder; once it has caught up and exited cleanly, the test opens the folder and counts.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import kafkajs, { type Admin } from 'kafkajs';
import { repoPath } from '../../schemas/paths.js';
import { openStorage } from '../../storage/gateway.js';
import { newDataDir, removeDataDir } from '../helpers/test-server.js';
import { admin, BROKER, countRaw, countRows, groupLag, uniqueTopic, waitFor } from './kafka-test-helpers.js';

const TOTAL = 200_000;
const topic = uniqueTopic('crash');
const group = `${topic}.group`;
const dir = newDataDir();
let a: Admin;
const children: ChildProcess[] = [];

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', repoPath('bin', 'cli.ts'), 'ingest', '--status-every', '0'], {
    env: {
      ...process.env,
      TRAJSCOPE_DATA_DIR: dir,
      TRAJSCOPE_LOG_LEVEL: 'warn',
      KAFKA_BROKERS: BROKER,
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: group,
      KAFKA_PARTITIONS: '4',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-4_000);
  });
  child.once('exit', (code, signal) => {
    if (code && code !== 0) console.error(`ingest worker exited with ${code ?? signal}:\n${err}`);
  });
  children.push(child);
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));
}

async function committed(): Promise<number> {
  const [g] = await a.fetchOffsets({ groupId: group, topics: [topic] });
  return (g?.partitions ?? []).reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
}

beforeAll(async () => {
  a = admin();
  await a.connect();
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(children.map(exited));
  await a?.disconnect();
  removeDataDir(dir);
});

describe('kill -9 of an ingest worker', () => {
  it('ends with exactly 200,000 steps after a restart', { timeout: 240_000 }, async () => {
    let worker = startWorker();
    await waitFor('the worker to create the topic', async () => ((await a.listTopics()).includes(topic) ? true : undefined), 60_000);
    const producer = new kafkajs.Kafka({ clientId: 'test-stream', brokers: [BROKER], logLevel: kafkajs.logLevel.NOTHING }).producer();
    await producer.connect();
    const t0 = Date.parse('2026-11-01T00:00:00Z');
    // A steady stream: 40 chunks of 5,000 steps (2,000 runs of 100 steps), keyed by run.
    let produced = 0;
    const streaming = (async () => {
      for (let c = 0; c < TOTAL / 5_000; c++) {
        const messages = [];
        for (let i = c * 5_000; i < (c + 1) * 5_000; i++) {
          const run = `crash-${Math.floor(i / 100)}`;
          messages.push({ key: run, value: JSON.stringify({ v: 1, type: 'step', project: 'crash', run_id: run, step: i % 100, ts: t0 + i, input_tokens: 10, output_tokens: 1, action: `a${i % 7}`, observation: `o${i}` }) });
        }
        await producer.send({ topic, acks: -1, messages });
        produced += messages.length;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    // Kill it once it has stored and committed part of the stream, while the stream goes on.
    await waitFor('the worker to commit 30,000 events', async () => ((await committed()) >= 30_000 ? true : undefined), 120_000, 50);
    const atKill = await committed();
    worker.kill('SIGKILL');
    await exited(worker);
    expect(atKill).toBeLessThan(TOTAL);
    worker = startWorker();
    await streaming;
    await producer.disconnect();
    expect(produced).toBe(TOTAL);
    await waitFor('the restarted worker to catch up', async () => ((await groupLag(a, topic, group)) === 0 ? true : undefined), 150_000, 250);
    worker.kill('SIGTERM'); // clean stop: leaves the group, closes the data folder
    await exited(worker);
    expect(worker.exitCode).toBe(0);

    const storage = await openStorage({ dataDir: dir, database: 'default' });
    try {
      const raw = await countRaw(storage, 'steps', 'crash');
      expect(await countRows(storage, 'steps', 'crash')).toBe(TOTAL);
      expect(raw).toBeGreaterThanOrEqual(TOTAL); // re-delivered rows (if any) collapse on their natural key
      const [runs] = await storage.query<{ n: string }>(`SELECT uniqExact(run_id) AS n FROM runs WHERE project = 'crash'`);
      expect(Number(runs.n)).toBe(TOTAL / 100);
    } finally {
      await storage.close();
    }
  });
});
