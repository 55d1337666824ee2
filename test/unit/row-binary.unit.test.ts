// The RowBinary encoder's bytes, and the values and types it declines (the engine round trip is
// in test/integration/row-binary.integration.test.ts).
import { describe, expect, it } from 'vitest';
import { rowBinaryEncoder } from '../../storage/row-binary.js';

const hex = (b: Buffer | undefined) => b?.toString('hex');

describe('rowBinaryEncoder', () => {
  it('writes strings with LEB128 lengths, nullable flags, little-endian numbers', () => {
    const enc = rowBinaryEncoder([
      { name: 's', type: 'LowCardinality(String)' },
      { name: 'n', type: 'Nullable(Float64)' },
      { name: 'u', type: 'UInt32' },
      { name: 'b', type: 'Bool' },
      { name: 'v', type: 'UInt8' },
    ])!;
    expect(enc.structure).toBe('s LowCardinality(String), n Nullable(Float64), u UInt32, b Bool, v UInt8');
    expect(hex(enc.encode([['é', null, 258, true, 7]]))).toBe('02c3a9' + '01' + '02010000' + '01' + '07');
    expect(hex(enc.encode([['', 1.5, 0, false, 0]]))).toBe('00' + '00' + '000000000000f83f' + '00000000' + '00' + '00');
  });

  it('writes 64-bit values in two halves, negative times in two’s complement', () => {
    const enc = rowBinaryEncoder([
      { name: 'u', type: 'UInt64' },
      { name: 't', type: "DateTime64(3, 'UTC')" },
    ])!;
    expect(hex(enc.encode([[2 ** 32 + 1, -1]]))).toBe('0100000001000000' + 'ffffffffffffffff');
    expect(hex(enc.encode([[Number.MAX_SAFE_INTEGER, -(2 ** 40)]]))).toBe('ffffffffffff1f00' + '0000000000ffffff');
  });

  it('gives long strings length prefixes of several bytes, whatever the text', () => {
    const enc = rowBinaryEncoder([{ name: 's', type: 'String' }])!;
    for (const s of ['a'.repeat(127), 'a'.repeat(128), 'ü'.repeat(100), '日'.repeat(6000), 'x'.repeat(2_100_000)]) {
      const out = enc.encode([[s]])!;
      const bytes = Buffer.byteLength(s);
      let n = 0;
      let shift = 0;
      let i = 0;
      for (;;) {
        const b = out[i++];
        n += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if (b < 0x80) break;
      }
      expect(n).toBe(bytes);
      expect(out.length).toBe(i + bytes);
      expect(out.subarray(i).toString('utf8')).toBe(s);
    }
  });

  it('declines a value its column cannot hold exactly, and a row of the wrong width', () => {
    const enc = rowBinaryEncoder([
      { name: 's', type: 'String' },
      { name: 'u', type: 'UInt32' },
      { name: 'c', type: 'UInt64' },
    ])!;
    expect(enc.encode([['x', 1, 2]])).toBeInstanceOf(Buffer);
    expect(enc.encode([['x', 2 ** 32, 2]])).toBeUndefined();
    expect(enc.encode([['x', -1, 2]])).toBeUndefined();
    expect(enc.encode([['x', 1.5, 2]])).toBeUndefined();
    expect(enc.encode([['x', 1, 2 ** 60]])).toBeUndefined();
    expect(enc.encode([[1, 1, 2]])).toBeUndefined();
    expect(enc.encode([['x', null, 2]])).toBeUndefined();
    expect(enc.encode([['x', 1]])).toBeUndefined();
    expect(enc.encode([{ s: 'x', u: 1, c: 2 }])).toBeUndefined();
    expect(enc.encode([['y', 3, 4]])).toBeInstanceOf(Buffer); // still usable after declining
  });

  it('has no encoder for types it does not write', () => {
    for (const type of ['Int32', 'Array(String)', 'Nullable(String) DEFAULT', 'DateTime', "DateTime64(6, 'UTC')", 'Map(String, String)']) {
      expect(rowBinaryEncoder([{ name: 'x', type }]), type).toBeUndefined();
    }
  });
});
