// The pure parts of the cluster statements: reading EXPLAIN AST lines (as chDB 26.7 prints them,
// copied from the engine) into what a statement is, the table-level commands, and the refusal of
// a cluster without a server at configuration time. The engine side is in
// test/integration/cluster-ddl.integration.test.ts.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/config.js';
import { checkName, ClusterStatementError, optimizeFinalSql, partsTable } from '../../storage/cluster-ddl.js';
import { describeStatement, parseExplainAst, StatementShapeError } from '../../storage/statement-ast.js';

const lines = (text: string) => text.split('\n');

/** EXPLAIN AST CREATE TABLE IF NOT EXISTS steps (...) ENGINE = ReplacingMergeTree(ingested_at) PARTITION BY toYYYYMM(ts) ORDER BY (project, run_id, step) */
const CREATE_STEPS = `CreateQuery steps (children 4)
 Identifier steps
 Columns definition (children 1)
  ExpressionList (children 2)
   ColumnDeclaration project (children 1)
    DataType LowCardinality (children 1)
     ExpressionList (children 1)
      DataType String
   ColumnDeclaration run_id (children 1)
    DataType String
 Storage definition (children 3)
  Function ReplacingMergeTree (children 1)
   ExpressionList (children 1)
    Identifier ingested_at
  Function toYYYYMM (children 1)
   ExpressionList (children 1)
    Identifier ts
  Function tuple (children 1)
   ExpressionList (children 3)
    Identifier project
    Identifier run_id
    Identifier step
 Identifier JSONEachRow`;

const ALTER = `AlterQuery  runs (children 3)
 ExpressionList (children 2)
  AlterCommand COMMENT_COLUMN (children 2)
   Identifier a
   Literal 'x'
  AlterCommand MODIFY_COMMENT (children 1)
   Literal 'y'
 Identifier runs
 Identifier JSONEachRow`;

const VIEW = `CreateQuery mv (children 4)
 Identifier mv
 SelectWithUnionQuery (children 1)
  ExpressionList (children 1)
   SelectQuery (children 3)
    ExpressionList (children 2)
     Identifier project
     Function count (alias c) (children 1)
      ExpressionList
    TablesInSelectQuery (children 1)
     TablesInSelectQueryElement (children 1)
      TableExpression (children 1)
       TableIdentifier steps
    ExpressionList (children 1)
     Identifier project
 ViewTargets
 Identifier JSONEachRow`;

describe('what a statement is, from the engine tree', () => {
  it('a table: its name, engine with arguments and columns', () => {
    expect(describeStatement(parseExplainAst(lines(CREATE_STEPS)), false)).toEqual({
      kind: 'create_table',
      table: 'steps',
      engine: 'ReplacingMergeTree',
      engineArgs: ['ingested_at'],
      columns: ['project', 'run_id'],
    });
  });

  it('an ALTER: its table and the kinds of its commands', () => {
    expect(describeStatement(parseExplainAst(lines(ALTER)), false)).toEqual({ kind: 'alter', table: 'runs', commands: ['COMMENT_COLUMN', 'MODIFY_COMMENT'] });
  });

  it('a materialized view: the tables its SELECT reads', () => {
    expect(describeStatement(parseExplainAst(lines(VIEW)), true)).toEqual({ kind: 'create_materialized_view', view: 'mv', reads: ['steps'] });
  });

  it('an engine argument that is not a column name is refused', () => {
    const text = CREATE_STEPS.replace('    Identifier ingested_at', "    Literal 'x'");
    expect(() => describeStatement(parseExplainAst(lines(text)), false)).toThrow(StatementShapeError);
  });

  it('two trees (or none) are refused', () => {
    expect(() => parseExplainAst(lines(`${ALTER}\n${ALTER}`))).toThrow(/more than one tree/);
    expect(() => parseExplainAst([])).toThrow(/no tree/);
  });

  it('a node with other children than it declares is refused (a name with a line break adds lines)', () => {
    expect(() => parseExplainAst(lines(ALTER.replace(/\(children (\d+)\)/, (_, n) => `(children ${Number(n) + 1})`)))).toThrow(/declares/);
    expect(() => parseExplainAst(lines(`${ALTER}\nb'`))).toThrow(/not a node|more than one tree/);
  });
});

describe('table-level commands', () => {
  it('OPTIMIZE goes to the table itself without a cluster, to the local tables ON CLUSTER with one', () => {
    expect(optimizeFinalSql('run_analysis', undefined)).toBe('OPTIMIZE TABLE run_analysis FINAL');
    expect(optimizeFinalSql('run_analysis', 'c1')).toBe('OPTIMIZE TABLE run_analysis_local ON CLUSTER c1 FINAL');
    expect(partsTable({ config: { database: 'default', dataDir: '' } }, 'steps')).toBe('steps');
    expect(partsTable({ config: { database: 'default', dataDir: '', cluster: 'c1' } }, 'steps')).toBe('steps_local');
  });

  it('names that are not plain are refused', () => {
    expect(() => optimizeFinalSql('runs; DROP TABLE x', 'c1')).toThrow(ClusterStatementError);
    expect(() => checkName('cluster', "c1' OR 1")).toThrow(/cluster "c1' OR 1" is not a plain name/);
  });
});

describe('configuration', () => {
  it('refuses CLICKHOUSE_CLUSTER without a server', () => {
    expect(() => loadConfig({ CLICKHOUSE_CLUSTER: 'trajscope_cluster' })).toThrow(ConfigError);
    expect(() => loadConfig({ CLICKHOUSE_CLUSTER: 'trajscope_cluster' })).toThrow(/CLICKHOUSE_CLUSTER: needs CLICKHOUSE_URL/);
  });

  it('refuses a cluster name that is not plain, and takes a plain one with a server', () => {
    expect(() => loadConfig({ CLICKHOUSE_URL: 'http://127.0.0.1:8123', CLICKHOUSE_CLUSTER: 'a-b' })).toThrow(/must be a plain cluster name/);
    expect(loadConfig({ CLICKHOUSE_URL: 'http://127.0.0.1:8123', CLICKHOUSE_CLUSTER: 'trajscope_cluster' }).clickhouse.cluster).toBe('trajscope_cluster');
    expect(loadConfig({}).clickhouse.cluster).toBeUndefined();
  });
});
