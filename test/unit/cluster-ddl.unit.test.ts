// The pure parts of the cluster statements: reading EXPLAIN AST lines (as chDB 26.7 prints them,
// copied from the engine) into what a statement is, the table-level commands, and the refusal of
// a cluster without a server at configuration time. The engine side is in
// test/integration/cluster-ddl.integration.test.ts.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/config.js';
import { checkName, ClusterStatementError, optimizeFinalSql, partsTable } from '../../storage/cluster-ddl.js';
import { describeStatement, findAll, labelOf, parseExplainAst, StatementShapeError } from '../../storage/statement-ast.js';

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

/** EXPLAIN AST CREATE TABLE steps_0020 AS steps ENGINE = ReplacingMergeTree(ingested_at) PARTITION BY toYYYYMM(ts) ORDER BY (project, run_id, step) SETTINGS index_granularity = 1024 */
const CREATE_AS = `CreateQuery steps_0020 (children 3)
 Identifier steps_0020
 Storage definition (children 4)
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
  Set
 Identifier JSONEachRow`;

/** EXPLAIN AST CREATE TABLE t ENGINE = MergeTree ORDER BY a AS SELECT 1 AS a */
const CREATE_AS_SELECT = `CreateQuery t (children 4)
 Identifier t
 Storage definition (children 2)
  Function MergeTree
  Identifier a
 SelectWithUnionQuery (children 1)
  ExpressionList (children 1)
   SelectQuery (children 1)
    ExpressionList (children 1)
     Literal UInt64_1 (alias a)
 Identifier JSONEachRow`;

/** EXPLAIN AST INSERT INTO steps_0020 SETTINGS distributed_foreground_insert = 1 SELECT * FROM steps */
const INSERT_SELECT = `InsertQuery   (children 3)
 Identifier steps_0020
 SelectWithUnionQuery (children 1)
  ExpressionList (children 1)
   SelectQuery (children 2)
    ExpressionList (children 1)
     Asterisk
    TablesInSelectQuery (children 1)
     TablesInSelectQueryElement (children 1)
      TableExpression (children 1)
       TableIdentifier steps
 Set`;

/** EXPLAIN AST INSERT INTO FUNCTION remote('h', db, t) SELECT 1 */
const INSERT_FUNCTION = `InsertQuery   (children 2)
 Function remote (children 1)
  ExpressionList (children 3)
   Literal 'h'
   Identifier db
   Identifier t
 SelectWithUnionQuery (children 1)
  ExpressionList (children 1)
   SelectQuery (children 1)
    ExpressionList (children 1)
     Literal UInt64_1`;

describe('what a statement is, from the engine tree', () => {
  it('a table: its name, engine with arguments and columns', () => {
    expect(describeStatement(parseExplainAst(lines(CREATE_STEPS)), false)).toEqual({
      kind: 'create_table',
      table: 'steps',
      engine: 'ReplacingMergeTree',
      engineArgs: ['ingested_at'],
      columns: ['project', 'run_id'],
      asTable: false,
    });
  });

  it('a table made AS another (no column list): a table with its engine, no columns of its own', () => {
    expect(describeStatement(parseExplainAst(lines(CREATE_AS)), false)).toEqual({
      kind: 'create_table',
      table: 'steps_0020',
      engine: 'ReplacingMergeTree',
      engineArgs: ['ingested_at'],
      columns: [],
      asTable: true,
    });
    // Made from a SELECT (no column list either, but filled by the query): not a table like the others.
    expect(describeStatement(parseExplainAst(lines(CREATE_AS_SELECT)), false)).toEqual({ kind: 'other', node: 'CreateQuery t' });
  });

  it('a DROP: the names its node prints (database, table)', () => {
    expect(describeStatement(parseExplainAst(lines('DropQuery  steps_0020 (children 2)\n Identifier steps_0020\n Identifier JSONEachRow')), false)).toEqual({
      kind: 'drop',
      name: 'steps_0020',
    });
    // DROP TABLE db.steps_0020
    expect(describeStatement(parseExplainAst(lines('DropQuery db steps_0020 (children 3)\n Identifier db\n Identifier steps_0020\n Identifier JSONEachRow')), false)).toEqual({
      kind: 'drop',
      name: 'db steps_0020',
    });
  });

  it('an INSERT: the names of its target and whether it inserts a SELECT', () => {
    expect(describeStatement(parseExplainAst(lines(INSERT_SELECT)), false)).toEqual({ kind: 'insert', into: ['steps_0020'], select: true });
    expect(describeStatement(parseExplainAst(lines(INSERT_FUNCTION)), false)).toEqual({ kind: 'insert', into: [], select: true });
  });

  it('an EXCHANGE or RENAME: its names, without the output format the explained statement carries', () => {
    // EXCHANGE TABLES steps AND steps_0020 (RENAME TABLE steps TO steps_0020 gives the same tree)
    expect(describeStatement(parseExplainAst(lines('Rename (children 3)\n Identifier steps\n Identifier steps_0020\n Identifier JSONEachRow')), false)).toEqual({
      kind: 'rename',
      names: ['steps', 'steps_0020'],
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

  it('a nested node type (a SELECT of t.* REPLACE (…)) is read as one type', () => {
    const tree = parseExplainAst([
      'QualifiedAsterisk (children 2)',
      ' Identifier a',
      ' ColumnsTransformerList (children 1)',
      '  ColumnsReplaceTransformer (children 1)',
      '   ColumnsReplaceTransformer::Replacement (children 1)',
      '    Identifier b',
    ]);
    expect(findAll(tree, 'ColumnsReplaceTransformer::Replacement').map((n) => n.children.map(labelOf))).toEqual([['Identifier b']]);
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
