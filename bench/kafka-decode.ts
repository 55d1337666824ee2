// Benchmark of decoding fetched Kafka record batches: kafkajs's own record batch decoder against
// ours (ingest/kafka/record-batch-decoder.ts), on the ingest benchmark's events encoded by
// kafkajs's own encoder in batches as its producer sends them, gzip or not. No broker needed.
//   npx tsx bench/kafka-decode.ts [--events 200000] [--batch 1667] [--compression gzip|none] [--rounds 5]
// Prints, per decoder, the median (and best) µs per message from start to end of decoding, the
// process's CPU per message (all threads), with kafkajs's gzip codec and with ours
// (ingest/kafka/gzip-codec.ts), after checking that both decoders decode every batch alike.
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { gzipCodec } from '../ingest/kafka/gzip-codec.js';
import { decodeRecordBatch, kafkajsRecordBatchDecoder, type DecodedRecordBatch, type RecordBatchDecoder } from '../ingest/kafka/record-batch-decoder.js';
import { CompressionCodecs as Codecs, Compression as Types, encodeBatch, KafkajsDecoder as Decoder, plainBatch } from '../test/kafka/kafkajs-encoding.js';
import { benchEvents } from './bench-events.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '200000' },
    batch: { type: 'string', default: '1667' },
    compression: { type: 'string', default: 'gzip' },
    rounds: { type: 'string', default: '5' },
  },
});
const EVENTS = Number(args.events);
const PER_BATCH = Number(args.batch);
const ROUNDS = Number(args.rounds);
const compression = args.compression === 'none' ? Types.None : Types.GZIP;

// The fetched bytes: record batches one after another, as a fetch response's partition carries them.
const events = benchEvents(EVENTS);
const batches: Buffer[] = [];
let offset = 0;
for (let i = 0; i < events.length; i += PER_BATCH) {
  const slice = events.slice(i, i + PER_BATCH);
  const records = slice.map((e, j) => ({ offsetDelta: j, timestampDelta: 0, key: Buffer.from(String(e.run_id)), value: Buffer.from(JSON.stringify(e)) }));
  batches.push(await encodeBatch(records, { compression, firstOffset: String(offset) }));
  offset += slice.length;
}
const fetched = Buffer.concat(batches);
console.log(`${events.length.toLocaleString('en-US')} events in ${batches.length} record batches of ${PER_BATCH} (${args.compression}), ${(fetched.length / 1e6).toFixed(1)} MB fetched`);

/**
 * Every batch decoded, and of each record what the consumer reads (kafkajs's batch its offset and
 * control flag, the ingest path its value, a dead letter its key): our decoder reads a record's
 * fields when they are asked for, so decoding alone would leave that work out.
 */
async function decodeAll(decode: RecordBatchDecoder): Promise<DecodedRecordBatch[]> {
  const d = new Decoder(fetched);
  const out: DecodedRecordBatch[] = [];
  let bytes = 0;
  for (let i = 0; i < batches.length; i++) {
    const batch = await decode(d);
    for (const r of batch.records) bytes += r.offset.length + ((r as { isControlRecord?: boolean }).isControlRecord ? 1 : 0) + (r.value?.length ?? 0) + (r.key?.length ?? 0);
    out.push(batch);
  }
  if (bytes === 0) throw new Error('nothing read');
  return out;
}

const theirs = kafkajsRecordBatchDecoder();
const [a, b] = [await decodeAll(decodeRecordBatch), await decodeAll(theirs)];
if (!isDeepStrictEqual(a.map(plainBatch), b)) throw new Error('the decoders disagree');
if (a.flatMap((x) => x.records).length !== events.length) throw new Error('not every message was decoded');

function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
}
const kafkajsGzip = Codecs[Types.GZIP];
const ourGzip = () => gzipCodec;
const variants = [
  ['kafkajs decoder, kafkajs gzip', theirs, kafkajsGzip],
  ['kafkajs decoder, our gzip', theirs, ourGzip],
  ['our decoder, kafkajs gzip', decodeRecordBatch, kafkajsGzip],
  ['our decoder, our gzip', decodeRecordBatch, ourGzip],
] as const;
const results = new Map<string, { us: number[]; cpu: number[] }>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, decode, codec] of compression === Types.None ? variants.filter((v) => v[2] === kafkajsGzip) : variants) {
    Codecs[Types.GZIP] = codec;
    const r = results.get(name) ?? { us: [], cpu: [] };
    const t0 = process.cpuUsage();
    const w0 = performance.now();
    await decodeAll(decode);
    const wall = performance.now() - w0;
    const cpu = process.cpuUsage(t0);
    r.us.push((wall * 1000) / events.length);
    r.cpu.push((cpu.user + cpu.system) / events.length);
    results.set(name, r);
  }
}
for (const [name, r] of results) {
  console.log(
    `${name.padEnd(30)} ${median(r.us).toFixed(2)} µs a message (best ${Math.min(...r.us).toFixed(2)}), CPU of all threads ${median(r.cpu).toFixed(2)} µs (libuv's pool and GC helpers included)`,
  );
}
