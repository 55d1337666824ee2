// The TypeScript SDK's Kafka transport against the real broker: runs produced straight to the
// topic (the server's own producer format) are consumed by the ingest group and come out complete.
import { expect, it } from 'vitest';
import { TrajscopeClient } from '../../sdk/src/index.js';
import { agentRun, listRuns } from '../sdk/sdk-test-helpers.js';
import { BROKER, kafkaServerForFile, uniqueTopic, waitFor } from './kafka-test-helpers.js';

const topic = uniqueTopic('sdk');
const file = kafkaServerForFile(topic, { consume: true, produce: false });

it('runs sent by the SDK straight to Kafka are ingested complete', async () => {
  const ts = new TrajscopeClient({ kafka: { brokers: [BROKER], topic }, project: 'sdk-kafka', batchSize: 50, flushIntervalMs: 20, flushOnExit: false });
  await Promise.all(Array.from({ length: 10 }, (_, i) => agentRun(ts, `k-${i}`, 5, () => new Promise((r) => setImmediate(r)))));
  expect(await ts.flush(60_000)).toBe(true);
  expect(ts.stats()).toMatchObject({ sent: 10 * 12, dropped: 0, failed: 0 });
  await ts.shutdown();

  const runs = await waitFor('10 complete runs', async () => {
    const rs = await listRuns(file.server.url, 'sdk-kafka');
    return rs.length === 10 && rs.every((r) => r.status === 'success' && r.steps === 5 && r.tool_calls === 5) ? rs : undefined;
  });
  expect(runs.map((r) => r.run_id).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `k-${i}`).sort());
  for (const r of runs) expect(r).toMatchObject({ tool_errors: 1, input_tokens: 5 * 100 + 10, agent_name: 'sdk-test' });
});
