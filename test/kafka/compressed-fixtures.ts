// Record batches compressed by clients we did not write, kept as files under fixtures/: for each
// of snappy, lz4 and zstd, one batch compressed by librdkafka (kcat -z CODEC) and one by the
// broker's Java code (a topic with compression.type=CODEC recompresses what kcat sent plain:
// snappy-java's xerial framing, lz4-java's frames, zstd-jni). Each file is the partition's log
// segment as the broker wrote it: record batches back to back, as a fetch returns them.
// Regenerate with `npx tsx test/kafka/fixtures/make-compressed-batches.ts` (broker running).
import { readFileSync } from 'node:fs';

export const FIXTURE_CODECS = ['snappy', 'lz4', 'zstd'] as const;
export type FixtureCodec = (typeof FIXTURE_CODECS)[number];
/** Who compressed the batch: librdkafka (kcat) or the broker's Java code. */
export type FixtureWriter = 'librdkafka' | 'java';

export function fixtureFile(writer: FixtureWriter, codec: FixtureCodec): URL {
  return new URL(`./fixtures/${writer}-${codec}.batches`, import.meta.url);
}

export function readFixture(writer: FixtureWriter, codec: FixtureCodec): Buffer {
  return readFileSync(fixtureFile(writer, codec));
}

/**
 * The messages in every fixture, as `key<TAB>value` lines for kcat: 240 step events of about
 * 300 bytes (70 KB), more than one block of snappy-java (32 KiB) and of lz4-java (64 KiB).
 */
export function fixtureLines(): string[] {
  return Array.from({ length: 240 }, (_, i) => {
    const run = `fixture-run-${i % 7}`;
    const event = { v: 1, type: 'step', project: 'fixture', run_id: run, step: i, ts: 1764547200000 + i * 37, model: 'gpt-4o', input_tokens: 1000 + ((i * 7919) % 5000), output_tokens: (i * 31) % 700, action: `edit src/module_${i % 13}.py line ${i * 3}`, observation: `ok: ${(i * 2654435761) % 100000} bytes written, tests ${i % 5} failing` };
    return `${run}\t${JSON.stringify(event)}`;
  });
}
