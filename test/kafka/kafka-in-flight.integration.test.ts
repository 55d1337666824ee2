// The consumer fetches while earlier batches are being stored, but never holds more than
// KAFKA_MAX_IN_FLIGHT_EVENTS events and never commits an offset before the rows it carries are
// stored. Real broker, real engine; the engine's inserts are held at a gate (fault injection
// at the gateway) to freeze the moment between hand-over and storage.
import { describe, expect, it } from 'vitest';
import kafkajs from 'kafkajs';
import { getJson } from '../helpers/test-server.js';
import { BROKER, countRaw, countRows, groupLag, kafkaServerForFile, stepEvents, uniqueTopic, waitFor } from './kafka-test-helpers.js';

const topic = uniqueTopic('inflight');
const group = `${topic}.group`;
const MAX_IN_FLIGHT = 600;
const PER_PARTITION = 250; // 4 partitions: two batches fit under the bound, three do not
const file = kafkaServerForFile(topic, { consume: true, produce: false }, { KAFKA_MAX_IN_FLIGHT_EVENTS: String(MAX_IN_FLIGHT) });

describe('events in hand', () => {
  it('stay within the bound while storage holds, nothing is committed before it is stored, then all land once', async () => {
    const s = file.server.services.storage;
    const realInsert = s.insert.bind(s);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let held = 0;
    s.insert = async (...args: Parameters<typeof realInsert>) => {
      held++;
      await gate;
      return realInsert(...args);
    };
    const events = stepEvents('inflight', 4, PER_PARTITION); // 1,000 steps, one run per partition
    const producer = new kafkajs.Kafka({ clientId: 'trajscope-test', brokers: [BROKER], logLevel: kafkajs.logLevel.NOTHING }).producer();
    await producer.connect();
    try {
      await producer.send({
        topic,
        acks: -1,
        messages: events.map((e) => ({ partition: Number(String(e.run_id).split('-').pop()), key: String(e.run_id), value: JSON.stringify(e) })),
      });
    } finally {
      await producer.disconnect();
    }
    const status = async () => (await getJson(file.server.url, '/api/v1/ingest/status')).body;
    try {
      // Fetching goes on while the first insert waits: a second batch joins it...
      await waitFor('two batches in hand', async () => ((await status()).consumer.in_flight_events >= 2 * PER_PARTITION ? true : undefined), 20_000);
      // ...but no more than the bound, however long storage takes.
      await new Promise((r) => setTimeout(r, 1_500));
      const s1 = await status();
      expect(held).toBeGreaterThan(0);
      expect(s1.consumer.in_flight_events).toBeLessThanOrEqual(MAX_IN_FLIGHT);
      expect(s1.writer.buffered_rows).toBeLessThanOrEqual(MAX_IN_FLIGHT);
      expect(await groupLag(file.admin, topic, group)).toBe(events.length);
    } finally {
      open();
    }
    await waitFor('every step stored', async () => ((await countRows(s, 'steps', 'inflight')) === events.length ? true : undefined), 30_000);
    await waitFor('everything committed', async () => ((await groupLag(file.admin, topic, group)) === 0 ? true : undefined), 20_000);
    expect(await countRaw(s, 'steps', 'inflight')).toBe(events.length); // each stored once
    // The commit's answer reaches the consumer just after the broker counts it.
    await waitFor('nothing in hand', async () => ((await status()).consumer.in_flight_events === 0 ? true : undefined), 10_000);
  });
});
