// Snappy as Kafka producers write it into a record batch. The Java clients (snappy-java's
// SnappyOutputStream) use xerial's framing: the magic \x82SNAPPY\x00, two int32 versions, then
// blocks of [int32 BE length][raw snappy], each of up to 32 KiB of input. librdkafka writes one
// raw snappy block (and reads both). Raw snappy cannot start with the magic (its first element
// would copy from output that does not exist yet), so the magic tells them apart. Blocks are
// inflated by the snappy package (Rust's snap crate), which refuses a block whose output does
// not come to the length its header announces (snappyjs pads such output with zeros).
import { uncompressSync } from 'snappy';

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
/** The magic and the two version ints. */
const XERIAL_HEADER_BYTES = 16;

export class SnappyFramingError extends Error {
  override readonly name = 'SnappyFramingError';
}

/** The bytes of a Kafka snappy payload, xerial-framed or raw. */
export function snappyDecompress(payload: Buffer): Buffer {
  if (!isXerial(payload)) return uncompressBlock(payload);
  const blocks: Buffer[] = [];
  for (let at = XERIAL_HEADER_BYTES; at < payload.length; ) {
    const start = at + 4;
    const end = start <= payload.length ? start + payload.readInt32BE(at) : -1;
    if (end < start || end > payload.length) {
      throw new SnappyFramingError(`xerial snappy: the block at byte ${at} does not fit in the ${payload.length} bytes`);
    }
    blocks.push(uncompressBlock(payload.subarray(start, end)));
    at = end;
  }
  return blocks.length === 1 ? blocks[0] : Buffer.concat(blocks);
}

function uncompressBlock(block: Buffer): Buffer {
  return uncompressSync(block, { asBuffer: true }) as Buffer;
}

function isXerial(payload: Buffer): boolean {
  return payload.length >= XERIAL_HEADER_BYTES && payload.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC);
}
