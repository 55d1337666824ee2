// Compressed record batches against the real broker and the real embedded engine: events that
// kcat (librdkafka, a client we did not write) produces with snappy, lz4 or zstd land exactly
// once, and a malformed message inside the same compressed batch goes to the DLQ with its
// reason. A batch the worker has no decoder for goes to the DLQ as one message that names the
// codec and offsets (one a batch), and the partition goes on. Each codec has its own topic and worker.
import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { DLQ_HEADERS } from '../../ingest/kafka/dead-letters.js';
import { countRows, groupLag, kafkaServerForFile, kcatConsume, kcatProduce, stepEvents, uniqueTopic, waitFor } from './kafka-test-helpers.js';

const worker = { consume: true, produce: false };

/** kcat lines of `runs` runs of `steps` steps each, keyed by run_id (one run, one partition). */
function keyedLines(project: string, runs: number, steps: number): string[] {
  return stepEvents(project, runs, steps).map((e) => `${e.run_id}\t${JSON.stringify(e)}`);
}

for (const codec of ['snappy', 'lz4', 'zstd']) {
  describe(`kcat's ${codec} batches`, () => {
    const topic = uniqueTopic(`compression.${codec}`);
    const file = kafkaServerForFile(topic, worker);

    it('are stored exactly once, and the malformed message among them goes to the DLQ with its reason', async () => {
      const project = `kcat-${codec}`;
      const lines = keyedLines(project, 4, 25);
      // Keyed like run-0: in run-0's partition, so inside the same compressed batch as its steps.
      const bad = `not json (${codec})`;
      lines.splice(10, 0, `run-0\t${bad}`);
      await kcatProduce(topic, lines, true, codec);
      const storage = file.server.services.storage;
      await waitFor(`100 ${codec} steps`, async () => ((await countRows(storage, 'steps', project)) === 100 ? true : undefined), 20_000);
      const dead = await waitFor('the dead letter', async () => {
        const m = await kcatConsume(`${topic}.dlq`);
        return m.length > 0 ? m : undefined;
      }, 20_000);
      expect(dead.map((d) => d.value)).toEqual([bad]);
      expect(dead[0].headers[DLQ_HEADERS.error]).toMatch(/not valid JSON/);
      expect(dead[0].headers[DLQ_HEADERS.topic]).toBe(topic);
      await waitFor('the group to catch up', async () => ((await groupLag(file.admin, topic, `${topic}.group`)) === 0 ? true : undefined), 20_000);
      expect(await countRows(storage, 'steps', project)).toBe(100);
    });
  });
}

describe('a compressed batch the worker has no decoder for', () => {
  const topic = uniqueTopic('compression.nodecoder');
  const file = kafkaServerForFile(topic, worker);
  const table = kafkajs.CompressionCodecs as unknown as Record<number, unknown>;
  const ZSTD = kafkajs.CompressionTypes.ZSTD;

  it('goes to the DLQ as one message a batch, naming the codec and its offsets, and the partition goes on', async () => {
    const lines = keyedLines('nodecoder', 1, 10); // one run: one partition
    const zstd = table[ZSTD];
    delete table[ZSTD]; // this worker now has no zstd decoder, as it had none before
    // kcat sends the 10 records in one batch as a rule, in two when its linger timer falls between
    // them: either way, one dead letter a batch, together naming every offset once.
    const span = (h: Record<string, string>) => {
      const [, first, last] = /offsets (\d+)-(\d+) /.exec(h[DLQ_HEADERS.error]) ?? [];
      return { first: Number(first), last: Number(last) };
    };
    let dead: Awaited<ReturnType<typeof kcatConsume>> = [];
    try {
      await kcatProduce(topic, lines, true, 'zstd');
      dead = await waitFor('the dead letters of the batches', async () => {
        const m = await kcatConsume(`${topic}.dlq`);
        const covered = m.reduce((n, d) => n + span(d.headers).last - span(d.headers).first + 1, 0);
        return covered >= 10 ? m : undefined;
      }, 20_000);
      const spans = dead.map((d) => span(d.headers)).sort((a, b) => a.first - b.first);
      expect(spans[spans.length - 1].last - spans[0].first).toBe(9);
      for (let i = 1; i < spans.length; i++) expect(spans[i].first).toBe(spans[i - 1].last + 1);
      for (const d of dead) {
        const h = d.headers;
        const { first, last } = span(h);
        expect(h[DLQ_HEADERS.error]).toMatch(new RegExp(`^record batch of offsets ${first}-${last} \\(${last - first + 1} records, zstd\\) could not be decoded: no decoder for zstd`));
        expect(h[DLQ_HEADERS.offset]).toBe(String(last));
        expect(h[DLQ_HEADERS.topic]).toBe(topic);
        expect(d.value).toBe('');
      }
    } finally {
      table[ZSTD] = zstd;
    }
    // Past the batch: the same events again, now decoded, are stored and the group catches up.
    await kcatProduce(topic, lines, true, 'zstd');
    await waitFor('the 10 steps sent again', async () => ((await countRows(file.server.services.storage, 'steps', 'nodecoder')) === 10 ? true : undefined), 20_000);
    await waitFor('the group to catch up', async () => ((await groupLag(file.admin, topic, `${topic}.group`)) === 0 ? true : undefined), 20_000);
    expect(file.server.services.kafka?.consumer?.stats.dlqSent).toBe(dead.length);
  });
});
