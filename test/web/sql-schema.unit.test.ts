import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SqlSchemaTable } from '../../schemas/api.js';
import { repoPath } from '../../schemas/paths.js';
import { availableExamples, EXAMPLE_QUERIES } from '../../web/src/lib/sql-examples.js';
import { columnsInScope, completionSchema, hasColumns, quoteIdentifier, tablesInQuery } from '../../web/src/lib/sql-schema.js';

const TABLES: SqlSchemaTable[] = [
  {
    name: 'steps',
    engine: 'ReplacingMergeTree',
    description: 'One row per step',
    columns: [
      { name: 'run_id', type: 'String', description: '' },
      { name: 'input_tokens', type: 'UInt64', description: 'prompt tokens' },
    ],
  },
  {
    name: 'tool_calls',
    engine: 'ReplacingMergeTree',
    description: '',
    columns: [
      { name: 'run_id', type: 'String', description: '' },
      { name: 'tool', type: 'LowCardinality(String)', description: 'tool name' },
    ],
  },
];

describe('completion schema', () => {
  it('gives each table its columns with types and descriptions', () => {
    const s = completionSchema(TABLES);
    expect(Object.keys(s)).toEqual(['steps', 'tool_calls']);
    expect(s.steps.self).toEqual({ label: 'steps', type: 'type', detail: 'ReplacingMergeTree', info: 'One row per step' });
    expect(s.steps.children).toEqual([
      { label: 'run_id', type: 'property', detail: 'String' },
      { label: 'input_tokens', type: 'property', detail: 'UInt64', info: 'prompt tokens' },
    ]);
    expect(s.tool_calls.self.info).toBeUndefined();
  });
});

describe('tables a query reads', () => {
  const known = TABLES.map((t) => t.name);

  it('finds tables after FROM and JOIN, with database prefixes, quotes and FINAL', () => {
    expect(tablesInQuery('SELECT * FROM steps FINAL', known)).toEqual(['steps']);
    expect(tablesInQuery('select 1 from default.`tool_calls` t join steps s using run_id', known)).toEqual(['tool_calls', 'steps']);
    expect(tablesInQuery('SELECT * FROM (SELECT * FROM steps) JOIN steps USING run_id', known)).toEqual(['steps']);
    expect(tablesInQuery('SELECT * FROM numbers(3)', known)).toEqual([]);
  });

  it('ignores names in comments and strings', () => {
    expect(tablesInQuery("SELECT 'from steps' -- from tool_calls\nFROM x", known)).toEqual([]);
    expect(tablesInQuery('/* join steps */ SELECT 1', known)).toEqual([]);
  });

  it('completes bare column names of those tables, each once', () => {
    expect(columnsInScope('SELECT  FROM steps', TABLES).map((c) => c.label)).toEqual(['run_id', 'input_tokens']);
    const both = columnsInScope('SELECT  FROM steps JOIN tool_calls USING run_id', TABLES);
    expect(both.map((c) => c.label)).toEqual(['run_id', 'input_tokens', 'tool']);
    expect(both[2]).toMatchObject({ detail: 'LowCardinality(String) · tool_calls', info: 'tool name' });
    expect(columnsInScope('SELECT 1', TABLES)).toEqual([]);
  });
});

describe('names', () => {
  it('quotes names that are not plain identifiers', () => {
    expect(quoteIdentifier('steps')).toBe('steps');
    expect(quoteIdentifier('my table')).toBe('`my table`');
    expect(quoteIdentifier('a`b')).toBe('`a\\`b`');
    expect(quoteIdentifier('1st')).toBe('`1st`');
  });

  it('checks tables and columns', () => {
    expect(hasColumns(TABLES, 'steps', ['run_id', 'input_tokens'])).toBe(true);
    expect(hasColumns(TABLES, 'steps', ['tool'])).toBe(false);
    expect(hasColumns(TABLES, 'nope', [])).toBe(false);
  });
});

/** Columns of each CREATE TABLE in the migrations (and columns added by ALTER … ADD COLUMN). */
function migrationSchema(): SqlSchemaTable[] {
  const dir = repoPath('schemas', 'clickhouse');
  const tables = new Map<string, Set<string>>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.sql')).sort()) {
    const sql = readFileSync(`${dir}/${f}`, 'utf8');
    for (const m of sql.matchAll(/CREATE TABLE IF NOT EXISTS (\w+)\s*\(([\s\S]*?)\)\s*ENGINE/g)) {
      const cols = new Set<string>();
      for (const line of m[2].split('\n')) {
        const c = line.trim().match(/^(\w+)\s+\S/);
        if (c) cols.add(c[1]);
      }
      tables.set(m[1], cols);
    }
    for (const m of sql.matchAll(/ALTER TABLE (\w+) ADD COLUMN IF NOT EXISTS (\w+)/g)) tables.get(m[1])?.add(m[2]);
  }
  return [...tables].map(([name, cols]) => ({
    name,
    engine: '',
    description: '',
    columns: [...cols].map((c) => ({ name: c, type: '', description: '' })),
  }));
}

describe('example queries', () => {
  it('all fit the schema of our migrations', () => {
    const schema = migrationSchema();
    expect(schema.map((t) => t.name)).toEqual(expect.arrayContaining(['steps', 'tool_calls', 'run_analysis']));
    expect(availableExamples(schema).map((e) => e.id)).toEqual(EXAMPLE_QUERIES.map((e) => e.id));
  });

  it('are offered only when their tables and columns exist', () => {
    const withoutAnalysis = migrationSchema().filter((t) => t.name !== 'run_analysis');
    expect(availableExamples(withoutAnalysis).map((e) => e.id)).toEqual(['steps-and-errors-per-tool']);
    expect(availableExamples([])).toEqual([]);
  });

  it('use the columns they declare', () => {
    for (const e of EXAMPLE_QUERIES) {
      for (const cols of Object.values(e.requires)) for (const c of cols) expect(e.sql).toContain(c);
      for (const t of Object.keys(e.requires)) expect(e.sql).toContain(`FROM ${t}`);
    }
  });
});
