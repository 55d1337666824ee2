// Creates the events topic and its dead-letter topic when they are missing.
import type { Admin } from 'kafkajs';

export interface TopicSpec {
  topic: string;
  numPartitions: number;
}

/** Creates the topics of `specs` that do not exist yet; returns the names it created. */
export async function ensureTopics(admin: Admin, specs: readonly TopicSpec[]): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = specs.filter((s) => !existing.has(s.topic));
  if (missing.length === 0) return [];
  try {
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((s) => ({ topic: s.topic, numPartitions: s.numPartitions })),
    });
  } catch (err) {
    // Another worker created them first: fine as long as they exist now.
    const now = new Set(await admin.listTopics());
    if (!missing.every((s) => now.has(s.topic))) throw err;
  }
  return missing.map((s) => s.topic);
}
