// The SQL console's project confinement for non-admin keys: the table filter setting and the
// check of ClickHouse's query tree (EXPLAIN QUERY TREE lines).
import { describe, expect, it } from 'vitest';
import { checkQueryTree, sqlString, tableFiltersSetting } from '../../server/sql/project-scope.js';

const allowed = new Set(['default.runs', 'default.steps']);
const tree = (...lines: string[]) => ['QUERY id: 0', '  JOIN TREE', ...lines];

describe('tableFiltersSetting', () => {
  it('filters every table by the project, quoting twice', () => {
    expect(tableFiltersSetting(['runs', 'steps'], 'alpha')).toBe(`{'runs': 'project = \\'alpha\\'', 'steps': 'project = \\'alpha\\''}`);
    expect(sqlString("a'b\\c")).toBe(`'a\\'b\\\\c'`);
  });
});

describe('checkQueryTree', () => {
  it('accepts the project tables, FINAL and SAMPLE, number generators and SELECT without FROM', () => {
    expect(() =>
      checkQueryTree(
        tree(
          '    TABLE id: 3, alias: __table1, table_name: default.runs',
          '    TABLE id: 5, alias: __table2, table_name: default.steps, final: 1, sample_size: 1 / 2',
          '    TABLE_FUNCTION id: 7, alias: __table3, table_function_name: numbers',
          '    TABLE id: 9, alias: __table4, table_name: system.one',
          '    FUNCTION id: 4, function_name: equals, function_type: ordinary, result_type: UInt8',
          '    TABLE EXPRESSION',
        ),
        allowed,
      ),
    ).not.toThrow();
  });

  it('refuses other tables, system tables, table functions and dictionary reads', () => {
    expect(() => checkQueryTree(tree('    TABLE id: 3, alias: __table1, table_name: system.tables'), allowed)).toThrow(/system\.tables is not readable with this key; it may read only its project's tables \(runs, steps\)/);
    expect(() => checkQueryTree(tree('    TABLE id: 3, table_name: default.api_keys'), allowed)).toThrow(/default\.api_keys/);
    expect(() => checkQueryTree(tree('    TABLE id: 3, alias: __table1, table_name: other.runs'), allowed)).toThrow(/other\.runs/);
    expect(() => checkQueryTree(tree('    TABLE_FUNCTION id: 3, alias: __table1, table_function_name: merge'), allowed)).toThrow(/merge\(\)/);
    expect(() => checkQueryTree(tree('    FUNCTION id: 3, function_name: dictGet, function_type: ordinary'), allowed)).toThrow(/dictGet\(\)/);
    expect(() => checkQueryTree(tree('    FUNCTION id: 3, function_name: joinGet, function_type: ordinary'), allowed)).toThrow(/joinGet/);
  });

  it('fails closed on table lines it cannot read', () => {
    expect(() => checkQueryTree(tree('    TABLE id: 3, alias: x, table_name: default.runs'), allowed)).toThrow(/cannot be checked/);
    expect(() => checkQueryTree(tree('    TABLE id: 3, alias: __table1, table_name: default.runs, something: 1'), allowed)).toThrow(/cannot be checked/);
    expect(() => checkQueryTree(tree('    TABLE_FUNCTION id: 3, weird'), allowed)).toThrow(/\(unknown\)/);
  });
});
