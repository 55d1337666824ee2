// Creates the events topic and its dead-letter topic when they are missing, and waits until
// every partition of them has a leader that answers for it.
import type { Admin } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface TopicSpec {
  topic: string;
  numPartitions: number;
}

/** The topics did not get a leader that answers for every partition within the time allowed. */
export class TopicsNotReadyError extends Error {
  constructor(topics: readonly string[], waitedMs: number, reason: string) {
    super(`topics ${topics.join(', ')} not ready after ${Math.round(waitedMs / 1000)} s: ${reason}`);
    this.name = 'TopicsNotReadyError';
  }
}

/**
 * Creates the topics of `specs` that do not exist yet, then waits (up to `waitMs`) until all of
 * them have a leader that answers for every partition. Returns the names it created.
 */
export async function ensureTopics(admin: Admin, specs: readonly TopicSpec[], waitMs = 30_000): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = specs.filter((s) => !existing.has(s.topic));
  if (missing.length > 0) {
    try {
      // kafkajs's own wait for leaders retries only LEADER_NOT_AVAILABLE; a broker that has
      // just started answers UNKNOWN_TOPIC_OR_PARTITION for a while, so waitForLeaders below.
      await admin.createTopics({
        waitForLeaders: false,
        topics: missing.map((s) => ({ topic: s.topic, numPartitions: s.numPartitions })),
      });
    } catch (err) {
      // Another worker created them first: fine as long as they exist now.
      const now = new Set(await admin.listTopics());
      if (!missing.every((s) => now.has(s.topic))) throw err;
    }
  }
  await waitForLeaders(admin, specs.map((s) => s.topic), waitMs);
  return missing.map((s) => s.topic);
}

/**
 * Polls the topics' metadata until every partition has a leader that answers for its offsets.
 * Retriable Kafka errors (unknown topic, no leader yet, not the leader yet) are retried until
 * `waitMs` has passed; others are thrown.
 */
export async function waitForLeaders(admin: Admin, topics: readonly string[], waitMs: number, everyMs = 200): Promise<void> {
  const started = Date.now();
  for (;;) {
    let reason: string;
    try {
      const meta = await admin.fetchTopicMetadata({ topics: [...topics] });
      const leaderless = meta.topics.flatMap((t) =>
        t.partitions.filter((p) => p.leader < 0).map((p) => `${t.name}[${p.partitionId}]`),
      );
      if (leaderless.length === 0 && meta.topics.length === topics.length) {
        // A leader named in the metadata may not serve its partition yet (NOT_LEADER_FOR_PARTITION):
        // the partitions are ready once their leaders answer for their offsets.
        for (const t of topics) await admin.fetchTopicOffsets(t);
        return;
      }
      reason = leaderless.length ? `no leader yet for ${leaderless.join(', ')}` : 'not all topics in the metadata yet';
    } catch (err) {
      if (!(err as { retriable?: boolean }).retriable) throw err;
      reason = (err as Error).message;
    }
    const waited = Date.now() - started;
    if (waited >= waitMs) throw new TopicsNotReadyError(topics, waited, reason);
    await sleep(Math.min(everyMs, waitMs - waited));
  }
}
