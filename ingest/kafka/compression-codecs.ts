// The compression codecs of Kafka record batches, in kafkajs's own codec table (its public
// CompressionCodecs), which both kafkajs and our record batch decoder read. kafkajs has gzip
// only; producers that compress with snappy, lz4 or zstd (librdkafka clients, Java producers
// with compression.type) are common, so these three are decoded here: snappy with the snappy
// package (xerial-framed or raw, snappy-codec.ts), lz4 frames with lz4-napi, zstd frames with
// fzstd. Each returns the whole output or throws (a stream cut short is an error, not zeros).
// Our own producer writes gzip; the three others are decode-only.
import { decompress as zstdDecompress } from 'fzstd';
import kafkajs from 'kafkajs';
import { decompressFrameSync as lz4DecompressFrame } from 'lz4-napi';
import { installGzipCodec } from './gzip-codec.js';
import { snappyDecompress } from './snappy-codec.js';

/** A codec as kafkajs's table holds it (a factory in the table returns it). */
export interface CompressionCodec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

/** Kafka's codec ids (the low 3 bits of a record batch's attributes) and their names. */
export const CODEC_NAMES: Readonly<Record<number, string>> = { 1: 'gzip', 2: 'snappy', 3: 'lz4', 4: 'zstd' };
export const COMPRESSION_CODEC_MASK = 0x07;

/** compress() of a codec that Trajscope only decodes (its producer writes gzip). */
export class DecodeOnlyCodecError extends Error {
  override readonly name = 'DecodeOnlyCodecError';
  constructor(readonly codec: string) {
    super(`Trajscope decodes ${codec} record batches but does not write them: produce with gzip or no compression`);
  }
}

/** A record batch's codec id with no codec in the table (Kafka defines 1-4; a later Kafka may define more). */
export class UnsupportedCompressionError extends Error {
  override readonly name = 'UnsupportedCompressionError';
  constructor(readonly codecId: number) {
    const known = Object.entries(CODEC_NAMES).map(([id, name]) => `${id} ${name}`).join(', ');
    super(`no decoder for ${codecLabel(codecId)}${CODEC_NAMES[codecId] ? '' : ` (the codecs Kafka defines: ${known})`}`);
  }
}

export function codecLabel(codecId: number): string {
  return CODEC_NAMES[codecId] ?? `compression codec id ${codecId}`;
}

function decodeOnly(codec: string, decompress: (payload: Buffer) => Buffer): CompressionCodec {
  return {
    async compress(): Promise<Buffer> {
      throw new DecodeOnlyCodecError(codec);
    },
    async decompress(payload: Buffer): Promise<Buffer> {
      return decompress(payload);
    },
  };
}

export const snappyCodec = decodeOnly('snappy', snappyDecompress);
export const lz4Codec = decodeOnly('lz4', (payload) => lz4DecompressFrame(payload));
export const zstdCodec = decodeOnly('zstd', (payload) => {
  const out = zstdDecompress(payload);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
});

const table = kafkajs.CompressionCodecs as unknown as Record<number, (() => CompressionCodec) | undefined>;

/** Makes kafkajs (and our decoder) use these codecs: gzipCodec, and snappy, lz4 and zstd for reading. */
export function installCompressionCodecs(): void {
  installGzipCodec();
  const { CompressionTypes: types } = kafkajs;
  table[types.Snappy] = () => snappyCodec;
  table[types.LZ4] = () => lz4Codec;
  table[types.ZSTD] = () => zstdCodec;
}

/** The codec of a codec id (not 0) from kafkajs's table; throws when it has none. */
export function compressionCodec(codecId: number): CompressionCodec {
  const factory = table[codecId];
  if (!factory) throw new UnsupportedCompressionError(codecId);
  return factory();
}
