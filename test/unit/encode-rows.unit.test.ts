import { describe, expect, it } from 'vitest';
import { encodeRows } from '../../storage/gateway.js';

const asJsonList = (b: Buffer) => JSON.parse(`[${b.toString('utf8')}]`);

describe('encodeRows (the embedded insert payload)', () => {
  it('writes the rows separated by commas: arrays as they are, objects in column order, or whole without columns', () => {
    const cols = ['a', 'b', 'c'];
    expect(encodeRows([['x', 1, null]], cols).toString()).toBe('["x",1,null]');
    expect(encodeRows([{ c: true, a: 'x' }, ['y', 2, false]], cols).toString()).toBe('["x",null,true],["y",2,false]');
    expect(encodeRows([{ a: 1, b: 'y' }, { a: 2 }]).toString()).toBe('{"a":1,"b":"y"},{"a":2}');
  });

  it('keeps separators, brackets, newlines and non-ASCII text inside values as they are', () => {
    const tricky = ['line 1\nline 2\r\n\ttab "q" é 🙂', '],[', '},{', '\\', '\u2028'];
    expect(asJsonList(encodeRows([tricky, ['x', '', '', '', '']], ['a', 'b', 'c', 'd', 'e']))).toEqual([tricky, ['x', '', '', '', '']]);
  });
});
