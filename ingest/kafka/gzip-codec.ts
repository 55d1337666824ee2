// kafkajs's gzip codec, with output chunks of 1 MiB instead of zlib's 16 KiB: kafkajs inflates
// each fetched record batch (about 0.5 MB of events from 20–60 KB) with an async unzip, and with
// 16 KiB chunks that is some thirty hand-offs between the main thread and libuv's pool per
// batch, each with a buffer to concatenate: three times the CPU of inflating it in one chunk
// (bench/kafka-decode.ts prints both). Registered through kafkajs's own codec table.
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import kafkajs from 'kafkajs';

const CHUNK_BYTES = 1 << 20;
const unzip = promisify(zlib.unzip);
const gzip = promisify(zlib.gzip);

export const gzipCodec = {
  async compress(encoder: { buffer: Buffer }): Promise<Buffer> {
    return gzip(encoder.buffer);
  },
  async decompress(buffer: Buffer): Promise<Buffer> {
    return unzip(buffer, { chunkSize: CHUNK_BYTES });
  },
};

/** Makes kafkajs use gzipCodec for gzip batches, read and written. */
export function installGzipCodec(): void {
  kafkajs.CompressionCodecs[kafkajs.CompressionTypes.GZIP] = () => gzipCodec;
}
