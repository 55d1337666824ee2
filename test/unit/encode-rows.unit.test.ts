import { describe, expect, it } from 'vitest';
import { encodeRows } from '../../storage/gateway.js';

describe('encodeRows (the embedded insert payload)', () => {
  it('writes one JSON row per line: arrays as they are, objects in column order, or whole without columns', () => {
    const cols = ['a', 'b', 'c'];
    expect(encodeRows([['x', 1, null]], cols).toString()).toBe('["x",1,null]\n');
    expect(encodeRows([{ c: true, a: 'x' }], cols).toString()).toBe('["x",null,true]\n');
    expect(encodeRows([{ a: 1, b: 'y' }, { a: 2 }]).toString()).toBe('{"a":1,"b":"y"}\n{"a":2}\n');
  });

  it('keeps newlines and non-ASCII text inside values, so a raw newline always ends a row', () => {
    const text = encodeRows([['line 1\nline 2\r\n\ttab "q" é 🙂']], ['t']).toString('utf8');
    expect(text.split('\n')).toHaveLength(2);
    expect(JSON.parse(text.trim())).toEqual(['line 1\nline 2\r\n\ttab "q" é 🙂']);
  });
});
