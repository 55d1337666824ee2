// Topic setup against the real broker: missing topics are created and ensureTopics returns only
// once every partition has a leader; a topic that never gets one ends in a typed error in time.
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTopics, TopicsNotReadyError, waitForLeaders } from '../../ingest/kafka/topics.js';
import { admin, uniqueTopic } from './kafka-test-helpers.js';

let client: Admin;
beforeAll(async () => {
  client = admin();
  await client.connect();
});
afterAll(async () => {
  await client.disconnect();
});

describe('ensureTopics', () => {
  it('creates the missing topics and returns when all their partitions have a leader', async () => {
    const events = uniqueTopic('topics');
    const specs = [{ topic: events, numPartitions: 6 }, { topic: `${events}.dlq`, numPartitions: 1 }];
    expect(await ensureTopics(client, specs)).toEqual([events, `${events}.dlq`]);
    const meta = await client.fetchTopicMetadata({ topics: [events, `${events}.dlq`] });
    const partitions = meta.topics.flatMap((t) => t.partitions);
    expect(partitions).toHaveLength(7);
    expect(partitions.every((p) => p.leader >= 0)).toBe(true);
    // Offsets answer straight away (the step that failed right after a broker start).
    expect(await client.fetchTopicOffsets(events)).toHaveLength(6);
    // A second call creates nothing and still checks the leaders.
    expect(await ensureTopics(client, specs)).toEqual([]);
  });

  it('gives up on a topic that never appears with a typed error naming it', async () => {
    const never = uniqueTopic('never');
    const started = Date.now();
    const err = await waitForLeaders(client, [never], 1_500).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TopicsNotReadyError);
    expect((err as Error).message).toContain(never);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
