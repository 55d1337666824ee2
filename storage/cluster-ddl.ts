// The statements a ClickHouse cluster needs (CLICKHOUSE_CLUSTER), made from the same migration
// files as the single-server ones, and the one place where table-level commands (OPTIMIZE) learn
// which table they go to.
//
// Each table `t` of a migration becomes `t_local`, a Replicated*MergeTree table created ON CLUSTER
// on every node (one replica set per shard), and `t`, a Distributed table over the `t_local`
// tables, so every query of the application keeps its table names. A table is rebuilt (new
// settings) as on one server: DROP, CREATE TABLE … AS, INSERT … SELECT and EXCHANGE TABLES each
// have a cluster form. What a statement is (its kind, the table it names, its engine and key) is
// asked of the engine's parser (EXPLAIN AST, formatQuery): the engine's canonical text of the
// statement is the starting point, a few whole lines of it are replaced, and the result is
// formatted by the engine again.
import type { Storage } from './gateway.js';
import type { StatementParser } from './queries/statement-parser-queries.js';
import { describeStatement, findAll, nodeName, parseExplainAst, StatementShapeError } from './statement-ast.js';

export interface ClusterTarget {
  /** The cluster's name as the servers' remote_servers configuration names it. */
  cluster: string;
  /** The database the application uses (CLICKHOUSE_DATABASE): the Distributed tables name it. */
  database: string;
}

export interface ClusterStatement {
  sql: string;
  /** The object the statement creates or changes (of an EXCHANGE, the first of its two tables). */
  table: string;
  /** local: a Replicated table (or its materialized view); distributed: the table the application reads and writes. */
  role: 'local' | 'distributed';
}

export class ClusterStatementError extends Error {
  override readonly name = 'ClusterStatementError';
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Names that go into the statements as identifiers (the cluster's, the database's, tables'). */
export function checkName(what: string, name: string): string {
  if (!NAME.test(name)) throw new ClusterStatementError(`${what} ${JSON.stringify(name)} is not a plain name (letters, digits, _)`);
  return name;
}

export function localTableName(table: string): string {
  return `${table}_local`;
}

/**
 * Rows of one run land on one shard, so FINAL, argMax and every per-run read see all versions of
 * a row on the shard that holds it. A table is sharded by the first of these column groups that
 * its ORDER BY holds whole; any other table goes to one shard (key 0): a random key would spread
 * the versions of one row over shards, and FINAL would no longer collapse them.
 */
export const SHARD_COLUMNS: readonly (readonly string[])[] = [
  ['project', 'run_id'],
  ['project', 'trace_id'],
];
export const ONE_SHARD_KEY = '0';

/** Commands that change what a table looks like from outside: the Distributed table follows. */
const COLUMN_COMMANDS = new Set(['ADD_COLUMN', 'MODIFY_COLUMN', 'DROP_COLUMN', 'RENAME_COLUMN', 'COMMENT_COLUMN', 'MODIFY_COMMENT']);
/** Commands about the data and its storage: the local (Replicated) tables only. */
const STORAGE_COMMANDS = new Set([
  'ADD_INDEX',
  'DROP_INDEX',
  'MATERIALIZE_INDEX',
  'CLEAR_INDEX',
  'MATERIALIZE_COLUMN',
  'MODIFY_TTL',
  'REMOVE_TTL',
  'MATERIALIZE_TTL',
  'MODIFY_SETTING',
  'RESET_SETTING',
  'ADD_PROJECTION',
  'DROP_PROJECTION',
  'MATERIALIZE_PROJECTION',
  'DELETE',
  'UPDATE',
]);

/** The cluster statements for one statement of a migration, in the order they must run. */
export async function clusterStatements(parser: StatementParser, statement: string, target: ClusterTarget): Promise<ClusterStatement[]> {
  const cluster = checkName('cluster', target.cluster);
  const database = checkName('database', target.database);
  const formatted = await parser.format(statement);
  const lines = formatted.split('\n');
  const ast = parseExplainAst(await parser.explain(statement));
  const info = describeStatement(ast, lines[0]?.startsWith('CREATE MATERIALIZED VIEW ') ?? false);

  if (info.kind === 'create_table') {
    const table = checkName('table', info.table);
    const local = localTableName(table);
    if (!info.engine.endsWith('MergeTree') || info.engine.startsWith('Replicated')) {
      throw new ClusterStatementError(`table ${table}: engine ${info.engine} has no Replicated form made here (a *MergeTree engine is expected)`);
    }
    // CREATE TABLE t AS src copies the columns of src: on each node, those of its src_local.
    const source = info.asTable ? copiedTable(lines, table) : undefined;
    const as = (name: string | undefined) => (name ? ` AS ${name}` : '');
    const header = replaceHeader(
      lines,
      [`CREATE TABLE IF NOT EXISTS ${table}${as(source)}`, `CREATE TABLE ${table}${as(source)}`],
      `CREATE TABLE IF NOT EXISTS ${local} ON CLUSTER ${cluster}${as(source && localTableName(source))}`,
    );
    const args = info.engineArgs.join(', ');
    const engineLine = replaceLine(
      header,
      args ? [`ENGINE = ${info.engine}(${args})`] : [`ENGINE = ${info.engine}`, `ENGINE = ${info.engine}()`],
      `ENGINE = Replicated${info.engine}('${replicationPath(local, source !== undefined)}', '{replica}'${args ? `, ${args}` : ''})`,
      `table ${table}`,
    );
    const key = await shardingKey(parser, lines, table);
    return [
      { sql: await parser.format(engineLine.join('\n')), table: local, role: 'local' },
      {
        sql: await parser.format(`CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER ${cluster} AS ${local} ENGINE = Distributed(${cluster}, ${database}, ${local}, ${key})`),
        table,
        role: 'distributed',
      },
    ];
  }

  if (info.kind === 'alter') {
    const table = checkName('table', info.table);
    const unknown = info.commands.filter((c) => !COLUMN_COMMANDS.has(c) && !STORAGE_COMMANDS.has(c));
    if (unknown.length) throw new ClusterStatementError(`ALTER TABLE ${table}: no cluster form made for ${unknown.join(', ')}`);
    const toDistributed = info.commands.filter((c) => COLUMN_COMMANDS.has(c));
    if (toDistributed.length && toDistributed.length !== info.commands.length) {
      throw new ClusterStatementError(
        `ALTER TABLE ${table} mixes column changes (${toDistributed.join(', ')}) with storage changes: write them as two statements, the Distributed table takes only the first kind`,
      );
    }
    const out: ClusterStatement[] = [
      {
        sql: await parser.format(replaceHeader(lines, [`ALTER TABLE ${table}`], `ALTER TABLE ${localTableName(table)} ON CLUSTER ${cluster}`).join('\n')),
        table: localTableName(table),
        role: 'local',
      },
    ];
    if (toDistributed.length) {
      out.push({ sql: await parser.format(replaceHeader(lines, [`ALTER TABLE ${table}`], `ALTER TABLE ${table} ON CLUSTER ${cluster}`).join('\n')), table, role: 'distributed' });
    }
    return out;
  }

  if (info.kind === 'create_materialized_view') {
    return [{ sql: await localView(parser, lines, info.view, info.reads, cluster), table: info.view, role: 'local' }];
  }

  if (info.kind === 'drop') {
    const table = checkName('table', info.name);
    const drop = dropHead(lines, table);
    // The Distributed table first: no query reaches a dropped local table through it. SYNC: an
    // Atomic database otherwise frees a dropped table's replication path in (Zoo)Keeper only
    // minutes later, and the CREATE that follows a DROP IF EXISTS (a migration run again, a table
    // rebuilt) would find the path still taken.
    return [
      { sql: await parser.format(`${drop} ${table} ON CLUSTER ${cluster} SYNC`), table, role: 'distributed' },
      { sql: await parser.format(`${drop} ${localTableName(table)} ON CLUSTER ${cluster} SYNC`), table: localTableName(table), role: 'local' },
    ];
  }

  if (info.kind === 'insert') {
    // The Distributed table sends each row to the shard its sharding key picks, so the statement
    // as written (into `t`, reading the Distributed tables) is already the cluster's.
    const head = lines[0] ?? '';
    if (info.into.length !== 1 || !info.select) {
      throw new ClusterStatementError(`expected INSERT INTO <table> … SELECT into a table of this database, the engine formats it as ${head}`);
    }
    const table = checkName('table', info.into[0]!);
    if (head !== `INSERT INTO ${table}` && !head.startsWith(`INSERT INTO ${table} `)) throw new StatementShapeError(`expected INSERT INTO ${table}, the engine formats it as ${head}`);
    return [{ sql: formatted, table, role: 'distributed' }];
  }

  if (info.kind === 'rename') {
    const [a, b] = exchangedTables(lines, info.names);
    // The Distributed tables keep naming their local tables, so each now reads the other's data.
    return [
      { sql: await parser.format(`EXCHANGE TABLES ${localTableName(a)} AND ${localTableName(b)} ON CLUSTER ${cluster}`), table: localTableName(a), role: 'local' },
    ];
  }

  throw new ClusterStatementError(`no cluster form made for a statement of kind ${info.node}: ${lines[0] ?? ''}`);
}

/** The cluster statements of every statement of the migrations, per migration. */
export async function clusterMigrationStatements(
  parser: StatementParser,
  statements: readonly string[],
  target: ClusterTarget,
  where: string,
): Promise<ClusterStatement[]> {
  const out: ClusterStatement[] = [];
  for (const [i, statement] of statements.entries()) {
    try {
      out.push(...(await clusterStatements(parser, statement, target)));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new ClusterStatementError(`${where}, statement ${i + 1}: ${message}`);
    }
  }
  return out;
}

/**
 * A materialized view on a cluster fires on the inserts that reach each node's local source table
 * (the Distributed table forwards them there) and writes into the local target table on the same
 * node; source and target are both sharded by run, so the view's rows stay with their run.
 */
async function localView(parser: StatementParser, lines: string[], view: string, reads: string[], cluster: string): Promise<string> {
  checkName('view', view);
  const head = lines[0] ?? '';
  const prefix = `CREATE MATERIALIZED VIEW IF NOT EXISTS ${view} TO `;
  const target = head.startsWith(prefix) ? head.slice(prefix.length) : '';
  if (!NAME.test(target)) {
    throw new ClusterStatementError(`materialized view ${view}: expected CREATE MATERIALIZED VIEW IF NOT EXISTS ${view} TO <table> (a view with an inner table has no cluster form made here)`);
  }
  let out = [`CREATE MATERIALIZED VIEW IF NOT EXISTS ${view} ON CLUSTER ${cluster} TO ${localTableName(target)}`, ...lines.slice(1)];
  for (const source of new Set(reads)) out = replaceLine(out, [`FROM ${checkName('table', source)}`], `FROM ${localTableName(source)}`, `materialized view ${view}`);
  const sql = await parser.format(out.join('\n'));
  // The engine checks the result: the view must now read exactly the local tables.
  const nowReads = findAll(parseExplainAst(await parser.explain(sql)), 'TableIdentifier').map(nodeName);
  const expected = reads.map(localTableName);
  if (nowReads.join(',') !== expected.join(',')) {
    throw new ClusterStatementError(`materialized view ${view}: reads ${nowReads.join(', ')} after the change, expected ${expected.join(', ')}`);
  }
  return sql;
}

/**
 * Where the replicas of a local table meet in (Zoo)Keeper: {shard} and {replica} are the servers'
 * macros, {database} the table's database. A copy made to rebuild a table (CREATE TABLE t AS src)
 * is exchanged with the table and keeps its path under the other name; its path also ends with
 * the table's {uuid} (the same on every node of an ON CLUSTER create), so a rebuild applied again
 * after its exchange, or a later one under the same copy name, never meets a path still held.
 */
function replicationPath(local: string, copy: boolean): string {
  return `/clickhouse/tables/{shard}/{database}/${local}${copy ? '/{uuid}' : ''}`;
}

/**
 * The table a `CREATE TABLE t AS src` copies the columns of: the tree does not hold it, the
 * engine's formatted first line ends with it (as a CLONE AS, a table function or a name in another
 * database, it is refused).
 */
function copiedTable(lines: readonly string[], table: string): string {
  const head = lines[0] ?? '';
  const prefix = [`CREATE TABLE IF NOT EXISTS ${table} AS `, `CREATE TABLE ${table} AS `].find((p) => head.startsWith(p));
  if (!prefix) throw new ClusterStatementError(`table ${table}: expected a column list or CREATE TABLE ${table} AS <table>, the engine formats it as ${head}`);
  return checkName('table', head.slice(prefix.length));
}

/** `DROP TABLE` or `DROP TABLE IF EXISTS`, as the statement has it (the whole of it, one line). */
function dropHead(lines: readonly string[], table: string): string {
  const head = ['DROP TABLE IF EXISTS', 'DROP TABLE'].find((h) => lines.length === 1 && lines[0] === `${h} ${table}`);
  if (!head) {
    throw new ClusterStatementError(`expected DROP TABLE [IF EXISTS] ${table} (a view, dictionary or database has no cluster form made here), the engine formats it as ${lines.join(' ')}`);
  }
  return head;
}

/**
 * The two tables of `EXCHANGE TABLES a AND b`. A RENAME (the same node in the tree) has no
 * cluster form: a renamed local table would leave its Distributed table naming a table that is
 * gone, and a renamed Distributed table would keep reading the old local one.
 */
function exchangedTables(lines: readonly string[], names: readonly string[]): [string, string] {
  const [a, b] = names;
  if (names.length !== 2 || lines.length !== 1 || lines[0] !== `EXCHANGE TABLES ${a} AND ${b}`) {
    throw new ClusterStatementError(`expected EXCHANGE TABLES <table> AND <table> (a RENAME has no cluster form made here), the engine formats it as ${lines.join(' ')}`);
  }
  return [checkName('table', a!), checkName('table', b!)];
}

/** The sharding key of a table, from the columns of its ORDER BY (as the engine parses it). */
async function shardingKey(parser: StatementParser, lines: string[], table: string): Promise<string> {
  const orderBy = lines.filter((l) => l.startsWith('ORDER BY '));
  if (orderBy.length !== 1) throw new ClusterStatementError(`table ${table}: expected one ORDER BY clause`);
  const keyColumns = new Set(
    findAll(parseExplainAst(await parser.explain(`SELECT ${orderBy[0]!.slice('ORDER BY '.length)}`)), 'Identifier').map(nodeName),
  );
  const group = SHARD_COLUMNS.find((g) => g.every((c) => keyColumns.has(c)));
  return group ? `cityHash64(${group.join(', ')})` : ONE_SHARD_KEY;
}

/** The statement with its first line (one of `expected`) replaced. */
function replaceHeader(lines: readonly string[], expected: readonly string[], replacement: string): string[] {
  const head = lines[0] ?? '';
  if (!expected.includes(head)) throw new StatementShapeError(`expected the statement to start with ${expected.join(' or ')}, the engine formats it as ${head}`);
  return [replacement, ...lines.slice(1)];
}

/** The statement with its one whole line equal to one of `expected` replaced. */
function replaceLine(lines: readonly string[], expected: readonly string[], replacement: string, what: string): string[] {
  const at = lines.flatMap((l, i) => (expected.includes(l) ? [i] : []));
  if (at.length !== 1) throw new StatementShapeError(`${what}: expected one line ${expected.join(' or ')} in the engine's formatting, found ${at.length}`);
  return lines.map((l, i) => (i === at[0] ? replacement : l));
}

/**
 * The table a table-level command (OPTIMIZE, system.parts) names: the local table on a cluster,
 * where the parts are; the table itself otherwise.
 */
export function partsTable(storage: Pick<Storage, 'config'>, table: string): string {
  return storage.config.cluster ? localTableName(table) : table;
}

/**
 * OPTIMIZE TABLE t FINAL: on a cluster, the local tables ON CLUSTER (a Distributed table has no
 * parts to merge); without a cluster, the same statement as always.
 */
export function optimizeFinalSql(table: string, cluster: string | undefined): string {
  checkName('table', table);
  return cluster ? `OPTIMIZE TABLE ${localTableName(table)} ON CLUSTER ${checkName('cluster', cluster)} FINAL` : `OPTIMIZE TABLE ${table} FINAL`;
}
