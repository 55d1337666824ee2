import { describe, expect, it } from 'vitest';
import type { SqlResult } from '../../schemas/api.js';
import {
  baseType,
  cellNumber,
  cellText,
  chartByNames,
  chartPoints,
  defaultChart,
  downloadName,
  errorOffset,
  fitChart,
  formatBytes,
  isNumericType,
  isTimeType,
  lineColumn,
  splitSqlError,
  toCsv,
  toJsonRows,
  uniqueNames,
} from '../../web/src/lib/sql-result.js';

function result(columns: [string, string][], rows: unknown[][]): SqlResult {
  return {
    columns: columns.map(([name, type]) => ({ name, type })),
    rows,
    stats: { elapsed_ms: 1, rows: rows.length, rows_read: 0, bytes_read: 0, truncated: false },
  };
}

describe('column types', () => {
  it('unwraps Nullable, LowCardinality and SimpleAggregateFunction', () => {
    expect(baseType('Nullable(Float64)')).toBe('Float64');
    expect(baseType('LowCardinality(Nullable(String))')).toBe('String');
    expect(baseType('SimpleAggregateFunction(max, Nullable(DateTime64(3, \'UTC\')))')).toBe("DateTime64(3, 'UTC')");
  });

  it('knows numbers and times', () => {
    for (const t of ['UInt8', 'UInt64', 'Int32', 'Float64', 'Nullable(Float32)', 'Decimal(10, 2)', 'Decimal64(4)']) expect(isNumericType(t)).toBe(true);
    for (const t of ['String', 'LowCardinality(String)', 'Bool', 'DateTime', 'Array(UInt64)', 'Tuple(UInt8, UInt8)', 'UUID']) expect(isNumericType(t)).toBe(false);
    for (const t of ['Date', 'DateTime', "DateTime64(3, 'UTC')", "DateTime('UTC')", 'Nullable(Date32)']) expect(isTimeType(t)).toBe(true);
    expect(isTimeType('String')).toBe(false);
  });
});

describe('cells', () => {
  it('reads numbers, including 64-bit integers sent as strings', () => {
    expect(cellNumber(3.5)).toBe(3.5);
    expect(cellNumber('18446744073709551615')).toBeCloseTo(1.8446744073709552e19);
    expect(cellNumber('-12.5e3')).toBe(-12500);
    expect(cellNumber('abc')).toBeNull();
    expect(cellNumber('')).toBeNull();
    expect(cellNumber(null)).toBeNull();
    expect(cellNumber(true)).toBe(1);
  });

  it('shows NULL, JSON for composite values, text as is', () => {
    expect(cellText(null)).toBe('NULL');
    expect(cellText([1, 'a'])).toBe('[1,"a"]');
    expect(cellText({ k: 1 })).toBe('{"k":1}');
    expect(cellText('x y')).toBe('x y');
    expect(cellText(false)).toBe('false');
  });
});

describe('downloads', () => {
  const cols = [
    { name: 'name', type: 'String' },
    { name: 'n', type: 'UInt64' },
    { name: 'tags', type: 'Array(String)' },
  ];

  it('writes RFC 4180 CSV: quotes, doubled quotes, line breaks, empty NULL', () => {
    const csv = toCsv(cols, [
      ['plain', 1, ['a']],
      ['with, comma', null, []],
      ['say "hi"\nbye', 3, ['x', 'y']],
      [' padded', 4, null],
    ]);
    expect(csv).toBe(
      'name,n,tags\r\n' +
        'plain,1,"[""a""]"\r\n' +
        '"with, comma",,[]\r\n' +
        '"say ""hi""\nbye",3,"[""x"",""y""]"\r\n' +
        '" padded",4,\r\n',
    );
    expect(toCsv(cols, [])).toBe('name,n,tags\r\n');
  });

  it('writes JSON rows keyed by column, duplicate names kept apart', () => {
    const json = toJsonRows(
      [
        { name: 'a', type: 'UInt8' },
        { name: 'a', type: 'String' },
      ],
      [[1, null]],
    );
    expect(JSON.parse(json)).toEqual([{ a: 1, a_2: null }]);
    expect(uniqueNames(['x', 'y', 'x', 'x'])).toEqual(['x', 'y', 'x_2', 'x_3']);
  });

  it('names files by UTC time', () => {
    expect(downloadName('csv', new Date('2026-11-30T17:04:05.123Z'))).toBe('trajscope-query-20261130-170405.csv');
    expect(downloadName('json', new Date('2026-01-02T03:04:05Z'))).toBe('trajscope-query-20260102-030405.json');
  });
});

describe('chart', () => {
  it('plots a category against the first number as bars', () => {
    const r = result([['model', 'LowCardinality(String)'], ['runs', 'UInt64'], ['cost', 'Float64']], [['a', 3, 1.5], ['b', '4', null]]);
    expect(defaultChart(r.columns)).toEqual({ x: 0, y: 1, kind: 'bar' });
    expect(chartPoints(r, { x: 0, y: 2, kind: 'bar' })).toEqual([
      { x: 'a', y: 1.5 },
      { x: 'b', y: null },
    ]);
    expect(chartPoints(r, { x: 0, y: 1, kind: 'bar' })[1]).toEqual({ x: 'b', y: 4 });
  });

  it('plots time as a line, numbers against numbers, and nothing without a number', () => {
    expect(defaultChart(result([['n', 'UInt8'], ['day', 'Date']], []).columns)).toEqual({ x: 1, y: 0, kind: 'line' });
    expect(defaultChart(result([['step', 'UInt32'], ['tokens', 'UInt64']], []).columns)).toEqual({ x: 0, y: 1, kind: 'bar' });
    expect(defaultChart(result([['only', 'UInt64']], []).columns)).toBeNull();
    expect(defaultChart(result([['s', 'String']], []).columns)).toBeNull();
    const numericX = result([['step', 'UInt32'], ['tokens', 'UInt64']], [['7', 10]]);
    expect(chartPoints(numericX, { x: 0, y: 1, kind: 'line' })).toEqual([{ x: 7, y: 10 }]);
  });

  it('keeps a chosen chart while it fits the new columns, else picks again', () => {
    const cols = result([['a', 'String'], ['b', 'UInt8'], ['c', 'Float64']], []).columns;
    expect(fitChart(cols, { x: 0, y: 2, kind: 'line' })).toEqual({ x: 0, y: 2, kind: 'line' });
    expect(fitChart(cols, { x: 0, y: 0, kind: 'line' })).toEqual({ x: 0, y: 1, kind: 'bar' });
    expect(fitChart(cols.slice(0, 2), { x: 0, y: 2, kind: 'line' })).toEqual({ x: 0, y: 1, kind: 'bar' });
    expect(fitChart(cols, null)).toEqual({ x: 0, y: 1, kind: 'bar' });
  });

  it('takes a chart named by columns when the result has them', () => {
    const cols = result([['model', 'String'], ['runs', 'UInt64'], ['usd', 'Float64']], []).columns;
    expect(chartByNames(cols, { x: 'model', y: 'usd', kind: 'line' })).toEqual({ x: 0, y: 2, kind: 'line' });
    expect(chartByNames(cols, { x: 'model', y: 'nope', kind: 'bar' })).toBeNull();
    expect(chartByNames(cols, { x: 'runs', y: 'model', kind: 'bar' })).toBeNull();
  });

  it('caps the plotted rows', () => {
    const r = result([['k', 'String'], ['v', 'UInt8']], Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    expect(chartPoints(r, { x: 0, y: 1, kind: 'bar' }, 10)).toHaveLength(10);
  });
});

describe('error position', () => {
  it('maps the 1-based position of the statement to the editor text', () => {
    const msg = "Code: 62. DB::Exception: Syntax error: failed at position 11 (FROM) (line 1, col 11): FROM steps. Expected one of: …";
    expect(errorOffset('SELECT (1 FROM steps', msg)).toBe(10);
    // The server trims leading white space before it runs the statement.
    expect(errorOffset('\n  SELECT (1 FROM steps', msg)).toBe(13);
    expect(errorOffset('SELECT 1', 'Unknown identifier nosuch')).toBeNull();
    expect(errorOffset('SELECT 1', 'failed at position 0')).toBeNull();
    expect(errorOffset('SELECT 1', 'failed at position 999')).toBe(8);
  });

  it('splits the long list of expected tokens off and drops the appended FORMAT', () => {
    const msg =
      'Code: 62. DB::Exception: Syntax error: failed at position 29 (run_analysis) (line 2, col 8): run_analysis\nGROUP BY model\n FORMAT JSONCompact. Expected one of: token sequence, Dot, Comma, end of query. (SYNTAX_ERROR)';
    expect(splitSqlError(msg)).toEqual({
      summary: 'Code: 62. DB::Exception: Syntax error: failed at position 29 (run_analysis) (line 2, col 8): run_analysis\nGROUP BY model',
      expected: 'token sequence, Dot, Comma, end of query. (SYNTAX_ERROR)',
    });
    expect(splitSqlError('Unknown identifier nosuch')).toEqual({ summary: 'Unknown identifier nosuch', expected: null });
  });

  it('gives line and column of an offset', () => {
    expect(lineColumn('SELECT 1\nFROM x\nWHERE', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn('SELECT 1\nFROM x\nWHERE', 14)).toEqual({ line: 2, column: 6 });
    expect(lineColumn('ab\ncd', 3)).toEqual({ line: 2, column: 1 });
  });
});

describe('bytes', () => {
  it('formats sizes', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(35_000_000)).toBe('33 MB');
  });
});
