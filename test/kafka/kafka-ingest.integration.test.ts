// Kafka ingestion against the real broker (scripts/kafka-start.sh) and the real embedded
// ClickHouse engine: events produced by kcat (a client we did not write) and by our producer
// path land exactly once; malformed messages land in the DLQ with their reason; a storage
// outage delays but loses nothing, commits nothing meanwhile and turns /readyz unready.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { DLQ_HEADERS } from '../../ingest/kafka/dead-letters.js';
import { SLICE_EVENTS } from '../../ingest/kafka/event-consumer.js';
import { decodeRecordBatch } from '../../ingest/kafka/record-batch-decoder.js';
import { exampleRun, getJson, postEvents } from '../helpers/test-server.js';
import { BROKER, countRaw, countRows, groupLag, kafkaServerForFile, kcatConsume, kcatProduce, stepEvents, uniqueTopic, waitFor } from './kafka-test-helpers.js';

const require = createRequire(import.meta.url);
const topic = uniqueTopic('ingest');
const group = `${topic}.group`;
const file = kafkaServerForFile(topic);

const storage = () => file.server.services.storage;

describe('Kafka ingestion', () => {
  it('creates the topic and its dead-letter topic at start', async () => {
    const meta = await file.admin.fetchTopicMetadata({ topics: [topic, `${topic}.dlq`] });
    expect(meta.topics.find((t) => t.name === topic)?.partitions).toHaveLength(4);
    expect(meta.topics.find((t) => t.name === `${topic}.dlq`)?.partitions).toHaveLength(1);
  });

  it('stores events produced by kcat exactly once, even when they are produced twice', async () => {
    const events = stepEvents('kcat', 20, 50); // 1,000 steps
    const lines = events.map((e) => `${e.run_id}\t${JSON.stringify(e)}`);
    // A background merge would collapse the two deliveries' rows before they are counted raw.
    await storage().command('SYSTEM STOP MERGES steps');
    await kcatProduce(topic, lines, true);
    await waitFor('1,000 kcat steps', async () => ((await countRows(storage(), 'steps', 'kcat')) === 1000 ? true : undefined));
    // The same events again (a producer retry, a replayed file): still 1,000.
    await kcatProduce(topic, lines, true);
    await waitFor('the group to catch up', async () => ((await groupLag(file.admin, topic, group)) === 0 ? true : undefined));
    await file.server.services.writer.flush();
    expect(await countRaw(storage(), 'steps', 'kcat')).toBe(2000); // both deliveries were written...
    expect(await countRows(storage(), 'steps', 'kcat')).toBe(1000); // ...and count once
    await storage().command('SYSTEM START MERGES steps');
    const runs = await storage().query<{ n: string }>(`SELECT count() AS n FROM (SELECT DISTINCT run_id FROM runs WHERE project = 'kcat')`);
    expect(Number(runs[0].n)).toBe(20);
  });

  it('POST /v1/events produces to the topic (key = run_id) and the consumer stores the run', async () => {
    const run: Record<string, unknown>[] = exampleRun().map((e) => ({ ...(e as Record<string, unknown>), project: 'produced' }));
    const r = await postEvents(file.server.url, run, { ndjson: true });
    expect(r.status).toBe(200);
    expect(r.body.accepted).toBe(run.length);
    const runId = String(run[0].run_id);
    // Keyed by run_id: the whole run is in one partition, in order (read back with kcat).
    const onTopic = await new Promise<string[]>((resolve, reject) =>
      execFile('kcat', ['-C', '-b', BROKER, '-t', topic, '-e', '-q', '-f', '%k\t%p\t%s\n'], { timeout: 30_000, maxBuffer: 64 << 20 }, (err, out) =>
        err ? reject(err) : resolve(out.split('\n').filter((l) => l.startsWith(`${runId}\t`))),
      ),
    );
    expect(onTopic).toHaveLength(run.length);
    expect(new Set(onTopic.map((l) => l.split('\t')[1])).size).toBe(1);
    expect(onTopic.map((l) => JSON.parse(l.split('\t')[2]).type)).toEqual(run.map((e) => e.type));
    const { body } = await getJson(file.server.url, '/api/v1/ingest/status');
    expect(body.mode).toBe('kafka');
    expect(body.producer.events_produced).toBeGreaterThanOrEqual(run.length);
    const expectedSteps = run.filter((e) => e.type === 'step').length;
    await waitFor('the produced run', async () => ((await countRows(storage(), 'steps', 'produced')) === expectedSteps ? true : undefined));
    const rows = await storage().query<{ run_id: string; status: string | null }>(
      `SELECT run_id, anyLast(status) AS status FROM runs WHERE project = 'produced' GROUP BY run_id`,
    );
    const end = run.find((e) => e.type === 'run_end');
    expect(rows).toEqual([{ run_id: runId, status: end?.status }]);
  });

  it('answers invalid events per event on the producer path and produces only the valid ones', async () => {
    const r = await postEvents(file.server.url, [{ v: 1, type: 'step', project: 'mixed', run_id: 'm1', step: 0 }, { v: 1, type: 'nope' }]);
    expect(r.status).toBe(207);
    expect(r.body.accepted).toBe(1);
    expect(r.body.rejected).toHaveLength(1);
    expect(r.body.rejected[0].index).toBe(1);
  });

  it('sends malformed messages to the DLQ with the reason, source and original bytes, and keeps going', async () => {
    const bad = ['this is not json', '[1,2,3]', JSON.stringify({ v: 1, type: 'step', project: 'dlq' }), JSON.stringify({ v: 1, type: 'unknown_type', run_id: 'x' })];
    const good = stepEvents('dlq', 1, 10).map((e) => JSON.stringify(e));
    await kcatProduce(topic, [...bad.slice(0, 2), ...good.slice(0, 5), ...bad.slice(2), ...good.slice(5)]);
    await waitFor('10 good steps behind the bad ones', async () => ((await countRows(storage(), 'steps', 'dlq')) === 10 ? true : undefined));
    const dead = await waitFor('4 dead letters', async () => {
      const m = await kcatConsume(`${topic}.dlq`);
      return m.length >= 4 ? m : undefined;
    });
    expect(dead).toHaveLength(4);
    expect(dead.map((d) => d.value).sort()).toEqual([...bad].sort());
    for (const d of dead) {
      expect(d.headers[DLQ_HEADERS.topic]).toBe(topic);
      expect(Number(d.headers[DLQ_HEADERS.partition])).toBeGreaterThanOrEqual(0);
      expect(Number(d.headers[DLQ_HEADERS.offset])).toBeGreaterThanOrEqual(0);
      expect(d.headers[DLQ_HEADERS.error]?.length).toBeGreaterThan(3);
    }
    const reasons = Object.fromEntries(dead.map((d) => [d.value, d.headers[DLQ_HEADERS.error]]));
    expect(reasons['this is not json']).toMatch(/not valid JSON/);
    expect(reasons['[1,2,3]']).toMatch(/one JSON object/);
    expect(reasons[bad[2]]).toMatch(/run_id/);
    expect(reasons[bad[3]]).toMatch(/type/);
    const { body } = await getJson(file.server.url, '/api/v1/ingest/status');
    expect(body.dlq_count).toBe(4);
    expect(body.consumer.dlq_sent).toBe(4);
    expect(body.consumer.running).toBe(true);
    // The latest dead letters, with where they came from and why (the dashboard's Ingest page).
    const recent = body.consumer.recent_dead_letters as { partition: number; offset: string; reason: string; at: string }[];
    expect(recent).toHaveLength(4);
    const byOffset = new Map(dead.map((d) => [`${d.headers[DLQ_HEADERS.partition]}/${d.headers[DLQ_HEADERS.offset]}`, d.headers[DLQ_HEADERS.error]]));
    for (const r of recent) {
      expect(byOffset.get(`${r.partition}/${r.offset}`)).toBe(r.reason);
      expect(Date.parse(r.at)).toBeGreaterThan(Date.now() - 120_000);
    }
  });

  it('a batch of many slices sends exactly its bad messages to the DLQ, each with its own offset, and stores the rest', async () => {
    // One send to one partition: one record batch, fetched as one batch of 1,000 messages,
    // which the consumer hands over in slices of SLICE_EVENTS.
    const bad = new Map([[3, 'not json 3'], [SLICE_EVENTS + 44, 'not json A'], [2 * SLICE_EVENTS + 188, '[1]'], [999, JSON.stringify({ v: 1, type: 'step', project: 'slices' })]]);
    const good = stepEvents('slices', 4, 250);
    const values = good.map((e, i) => bad.get(i) ?? JSON.stringify(e));
    const kafka = new kafkajs.Kafka({ clientId: 'trajscope-test', brokers: [BROKER], logLevel: kafkajs.logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    const [meta] = await producer.send({ topic, acks: -1, messages: values.map((value) => ({ partition: 0, value })) }).finally(() => producer.disconnect());
    const base = Number(meta.baseOffset);
    await waitFor('the good steps of the sliced batch', async () => ((await countRows(storage(), 'steps', 'slices')) === 1_000 - bad.size ? true : undefined));
    const dead = await waitFor('its dead letters', async () => {
      const m = (await kcatConsume(`${topic}.dlq`)).filter((d) => Number(d.headers[DLQ_HEADERS.partition]) === 0 && Number(d.headers[DLQ_HEADERS.offset]) >= base);
      return m.length >= bad.size ? m : undefined;
    });
    expect(dead.map((d) => [Number(d.headers[DLQ_HEADERS.offset]) - base, d.value]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([...bad]);
    expect(await countRows(storage(), 'steps', 'slices')).toBe(1_000 - bad.size);
    // kafkajs's fetch path, loaded by now, was loaded with our record batch decoder in place.
    expect(require.cache[require.resolve('kafkajs/src/protocol/requests/fetch/v4/decodeMessages.js')]).toBeDefined();
    expect(require('kafkajs/src/protocol/recordBatch/v0/decoder.js')).toBe(decodeRecordBatch);
  });

  it('a storage outage delays but loses nothing: paused, nothing committed, /readyz unready, then resumes by itself', async () => {
    const s = storage();
    const realInsert = s.insert.bind(s);
    let failing = true;
    let failedInserts = 0;
    // Fault injection at the gateway: every insert fails until the outage ends.
    s.insert = async (...args: Parameters<typeof realInsert>) => {
      if (failing) {
        failedInserts++;
        throw new Error('injected outage: ClickHouse unreachable');
      }
      return realInsert(...args);
    };
    try {
      const before = await groupLag(file.admin, topic, group);
      expect(before).toBe(0);
      const events = stepEvents('outage', 10, 100); // 1,000 steps
      await kcatProduce(topic, events.map((e) => `${e.run_id}\t${JSON.stringify(e)}`), true);
      await waitFor('failed inserts', async () => (failedInserts >= 3 ? true : undefined), 20_000);
      const ready = await fetch(`${file.server.url}/readyz`);
      expect(ready.status).toBe(503);
      const status = (await getJson(file.server.url, '/api/v1/ingest/status')).body;
      expect(status.writer.failing).toBe(true);
      expect(status.consumer.paused).toBe(true);
      // Nothing of the new messages is committed while they are not stored.
      expect(await groupLag(file.admin, topic, group)).toBe(1000);
      expect(await countRows(s, 'steps', 'outage')).toBe(0);
    } finally {
      failing = false;
    }
    await waitFor('all 1,000 steps after the outage', async () => ((await countRows(s, 'steps', 'outage')) === 1000 ? true : undefined), 40_000);
    await waitFor('the group to commit', async () => ((await groupLag(file.admin, topic, group)) === 0 ? true : undefined), 20_000);
    expect((await fetch(`${file.server.url}/readyz`)).status).toBe(200);
    const status = (await getJson(file.server.url, '/api/v1/ingest/status')).body;
    expect(status.consumer.paused).toBe(false);
    expect(status.lag_total).toBe(0);
  });
});
