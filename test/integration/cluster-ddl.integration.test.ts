// The cluster statements (storage/cluster-ddl.ts) made from the real migrations, checked by the
// real engine's parser (chDB): every statement of every migration gets a cluster form that parses
// and that the engine formats back to itself, the key tables get a Replicated engine with their
// own ORDER BY and a Distributed table sharded by run, a materialized view reads and writes the
// local tables, a table is rebuilt (0020: DROP, CREATE TABLE … AS, INSERT … SELECT, EXCHANGE
// TABLES) on the local tables and through the Distributed ones. The embedded engine has no cluster (no remote_servers, no ZooKeeper), so no
// cluster statement runs here: the last tests pin down that migrate() takes the cluster path,
// that the engine refuses its statements for want of the cluster, not for the SQL, and that a
// database migrated without a cluster is refused.
import { describe, expect, it } from 'vitest';
import {
  clusterMigrationStatements,
  clusterStatements,
  ClusterStatementError,
  optimizeFinalSql,
  type ClusterStatement,
} from '../../storage/cluster-ddl.js';
import { clusterSettings, openStorage, StorageError, type Storage } from '../../storage/gateway.js';
import { loadMigrations, migrate, migrationStatements, SCHEMA_MIGRATIONS_TABLE } from '../../storage/migrate.js';
import { engineParser } from '../../storage/queries/statement-parser-queries.js';
import { findAll, labelOf, nodeName, parseExplainAst, type AstNode } from '../../storage/statement-ast.js';
import { migratedStorageForFile } from '../helpers/test-storage.js';
import { newDataDir, removeDataDir } from '../helpers/test-server.js';

const migrated = migratedStorageForFile();
const target = { cluster: 'trajscope_cluster', database: 'trajscope' };
const parser = () => engineParser(migrated.storage);
const tree = async (sql: string): Promise<AstNode> => parseExplainAst(await parser().explain(sql));

/** Every migration's statements with their cluster forms. */
async function allClusterStatements() {
  const out: { migration: string; statement: string; generated: ClusterStatement[] }[] = [];
  for (const m of loadMigrations()) {
    for (const statement of m.statements) {
      out.push({ migration: m.name, statement, generated: await clusterStatements(parser(), statement, target) });
    }
  }
  return out;
}

/** The child of `node` whose label is exactly `label` (or starts with it and a space). */
function at(node: AstNode, label: string): AstNode {
  const found = node.children.find((c) => labelOf(c) === label || labelOf(c).startsWith(`${label} `));
  if (!found) throw new Error(`no ${label} under ${labelOf(node)}: ${node.children.map((c) => labelOf(c)).join(', ')}`);
  return found;
}

/** A tree without the FORMAT identifier the explained statement carries (see engineParser). */
function withoutFormat(node: AstNode): AstNode {
  return { ...node, children: node.children.filter((c) => labelOf(c) !== 'Identifier JSONEachRow') };
}

/** A node's lines and those under it, without parent links (to compare subtrees of two trees). */
type Shape = { label: string; children: Shape[] };
function shape(node: AstNode): Shape {
  return { label: labelOf(node), children: node.children.map(shape) };
}

function storageOf(ast: AstNode): AstNode {
  return at(ast, 'Storage definition');
}

/** The column list of a CREATE TABLE, if it has one (one made AS another table has none). */
function columnsOf(ast: AstNode): Shape[] {
  return ast.children.filter((c) => labelOf(c).startsWith('Columns definition')).map(shape);
}

/** The table a statement's tree names: on its root (CREATE, ALTER, DROP) or its first name (INSERT, EXCHANGE). */
function tableOf(ast: AstNode): string {
  const first = ast.children.find((c) => c.type === 'Identifier');
  return nodeName(ast) || (first ? nodeName(first) : '');
}

/** The first line of the engine's formatting of a statement. */
async function firstLine(sql: string): Promise<string> {
  return (await parser().format(sql)).split('\n')[0]!;
}

describe('every statement of every migration', () => {
  it('has a cluster form that the engine parses and formats back to itself, ON CLUSTER', async () => {
    const all = await allClusterStatements();
    expect(all.length).toBeGreaterThan(50);
    const p = parser();
    for (const { migration, statement, generated } of all) {
      expect(generated.length, `${migration}: ${statement.slice(0, 80)}`).toBeGreaterThan(0);
      for (const g of generated) {
        const where = `${migration} → ${g.sql.split('\n')[0]}`;
        expect(await p.format(g.sql), where).toBe(g.sql);
        const ast = await tree(g.sql);
        expect(tableOf(ast), where).toBe(g.table);
        if (labelOf(ast).startsWith('InsertQuery')) {
          // An INSERT runs as written, through the Distributed table: the migration's very tree.
          expect(shape(ast), where).toEqual(shape(await tree(statement)));
        } else {
          expect(g.sql.split('\n')[0], where).toContain(` ON CLUSTER ${target.cluster}`);
        }
        // The local statements name the local tables only; the Distributed ones the shared names.
        expect(g.table.endsWith('_local'), where).toBe(g.role === 'local');
      }
    }
  });

  it('makes each table a Replicated local table with its own columns and keys, and a Distributed table over it', async () => {
    const p = parser();
    let tables = 0;
    let copies = 0;
    for (const { statement, generated } of await allClusterStatements()) {
      const original = withoutFormat(await tree(statement));
      if (!labelOf(original).startsWith('CreateQuery') || !original.children.some((c) => labelOf(c).startsWith('Storage definition'))) continue;
      tables++;
      const [local, distributed] = generated;
      expect(generated.map((g) => g.role)).toEqual(['local', 'distributed']);
      const localAst = withoutFormat(await tree(local!.sql));
      // Same columns, same PARTITION BY / ORDER BY / TTL / SETTINGS: only the engine differs.
      expect(columnsOf(localAst)).toEqual(columnsOf(original));
      if (columnsOf(original).length === 0) {
        // Made AS another table (the tree does not hold it): AS that table's local table.
        copies++;
        const source = (await firstLine(statement)).split(' AS ')[1];
        expect(await firstLine(local!.sql)).toBe(`CREATE TABLE IF NOT EXISTS ${local!.table} ON CLUSTER ${target.cluster} AS ${source}_local`);
      }
      expect(storageOf(localAst).children.slice(1).map(shape)).toEqual(storageOf(original).children.slice(1).map(shape));
      const engine = storageOf(original).children[0]!;
      const replicated = storageOf(localAst).children[0]!;
      expect(labelOf(replicated)).toBe(`Function Replicated${nodeName(engine)}`);
      const args = replicated.children[0]?.children.map((c) => labelOf(c)) ?? [];
      const path = `/clickhouse/tables/{shard}/{database}/${local!.table}${columnsOf(original).length === 0 ? '/{uuid}' : ''}`;
      expect(args.slice(0, 2)).toEqual([`Literal '${path}'`, "Literal '{replica}'"]);
      expect(args.slice(2)).toEqual(engine.children[0]?.children.map((c) => labelOf(c)) ?? []);
      const dist = storageOf(await tree(distributed!.sql)).children[0]!;
      expect(labelOf(dist)).toBe('Function Distributed');
      expect(dist.children[0]!.children.slice(0, 3).map((c) => labelOf(c))).toEqual([
        `Identifier ${target.cluster}`,
        `Identifier ${target.database}`,
        `Identifier ${local!.table}`,
      ]);
      expect(await p.format(distributed!.sql)).toContain(` AS ${local!.table}\n`);
    }
    expect(tables).toBeGreaterThanOrEqual(15);
    expect(copies).toBeGreaterThanOrEqual(2);
  });

  it('sends column changes to both tables and storage changes (indexes, MATERIALIZE) to the local tables only', async () => {
    for (const { statement, generated } of await allClusterStatements()) {
      const original = withoutFormat(await tree(statement));
      if (!labelOf(original).startsWith('AlterQuery')) continue;
      const commands = at(original, 'ExpressionList').children.map(nodeName);
      const columnOnly = commands.every((c) => ['ADD_COLUMN', 'MODIFY_COLUMN', 'COMMENT_COLUMN', 'MODIFY_COMMENT'].includes(c));
      expect(generated.map((g) => g.role), commands.join(',')).toEqual(columnOnly ? ['local', 'distributed'] : ['local']);
      for (const g of generated) {
        // The very commands of the migration, on the other table: the engine's trees are equal.
        expect(shape(at(withoutFormat(await tree(g.sql)), 'ExpressionList'))).toEqual(shape(at(original, 'ExpressionList')));
      }
    }
  });
});

describe('the key tables', () => {
  async function forTable(table: string) {
    const m = loadMigrations().find((x) => x.statements.some((s) => s.includes(`CREATE TABLE IF NOT EXISTS ${table}\n`)));
    const statement = m!.statements.find((s) => s.includes(`CREATE TABLE IF NOT EXISTS ${table}\n`))!;
    const [local, distributed] = await clusterStatements(parser(), statement, target);
    return { local: local!.sql, distributed: distributed!.sql };
  }

  it.each([
    ['steps', 'ReplicatedReplacingMergeTree', 'ingested_at', 'ORDER BY (project, run_id, step)'],
    ['tool_calls', 'ReplicatedReplacingMergeTree', 'ingested_at', 'ORDER BY (project, run_id, call_id)'],
    ['runs', 'ReplicatedAggregatingMergeTree', '', 'ORDER BY (project, run_id)'],
    ['run_analysis', 'ReplicatedReplacingMergeTree', 'version', 'ORDER BY (project, run_id)'],
  ])('%s: %s with its ORDER BY, Distributed by run', async (table, engine, version, orderBy) => {
    const { local, distributed } = await forTable(table);
    const lines = local.split('\n');
    expect(lines[0]).toBe(`CREATE TABLE IF NOT EXISTS ${table}_local ON CLUSTER trajscope_cluster`);
    expect(lines).toContain(
      `ENGINE = ${engine}('/clickhouse/tables/{shard}/{database}/${table}_local', '{replica}'${version ? `, ${version}` : ''})`,
    );
    expect(lines).toContain(orderBy);
    expect(distributed).toBe(
      `CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER trajscope_cluster AS ${table}_local\n` +
        `ENGINE = Distributed(trajscope_cluster, trajscope, ${table}_local, cityHash64(project, run_id))`,
    );
  });

  it('puts tables without runs on one shard (key 0), schema_migrations included', async () => {
    for (const table of ['api_keys', 'alert_rules', 'saved_queries']) {
      expect((await forTable(table)).distributed).toBe(
        `CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER trajscope_cluster AS ${table}_local\n` +
          `ENGINE = Distributed(trajscope_cluster, trajscope, ${table}_local, 0)`,
      );
    }
    const [local, distributed] = await clusterStatements(parser(), SCHEMA_MIGRATIONS_TABLE, target);
    expect(local!.sql).toContain("ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/schema_migrations_local', '{replica}')");
    expect(distributed!.sql).toContain('Distributed(trajscope_cluster, trajscope, schema_migrations_local, 0)');
    // OTLP spans go by trace, so one trace's spans stay together.
    expect((await forTable('otlp_spans')).distributed).toContain('cityHash64(project, trace_id)');
  });

  it('a materialized view reads the local source and writes the local target on its node', async () => {
    const view =
      'CREATE MATERIALIZED VIEW IF NOT EXISTS step_costs_mv TO step_costs AS SELECT project, run_id, sum(cost_usd) AS cost FROM steps GROUP BY project, run_id';
    const [g, ...rest] = await clusterStatements(parser(), view, target);
    expect(rest).toEqual([]);
    expect(g!.sql.split('\n')[0]).toBe('CREATE MATERIALIZED VIEW IF NOT EXISTS step_costs_mv ON CLUSTER trajscope_cluster TO step_costs_local');
    expect(await parser().format(g!.sql)).toBe(g!.sql);
    expect(findAll(await tree(g!.sql), 'TableIdentifier').map(nodeName)).toEqual(['steps_local']);
  });
});

describe('rebuilding a table: DROP, CREATE TABLE … AS, INSERT … SELECT, EXCHANGE TABLES', () => {
  const copySteps =
    'CREATE TABLE steps_0020 AS steps ENGINE = ReplacingMergeTree(ingested_at) PARTITION BY toYYYYMM(ts) ORDER BY (project, run_id, step) ' +
    'SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 10000';

  it.each([
    ['DROP TABLE IF EXISTS steps_0020', 'DROP TABLE IF EXISTS'],
    ['DROP TABLE steps_0020', 'DROP TABLE'],
  ])('%s: the Distributed table, then the local tables, ON CLUSTER … SYNC', async (statement, drop) => {
    const generated = await clusterStatements(parser(), statement, target);
    expect(generated).toEqual([
      { sql: `${drop} steps_0020 ON CLUSTER trajscope_cluster SYNC`, table: 'steps_0020', role: 'distributed' },
      { sql: `${drop} steps_0020_local ON CLUSTER trajscope_cluster SYNC`, table: 'steps_0020_local', role: 'local' },
    ]);
    for (const g of generated) expect(await parser().format(g.sql)).toBe(g.sql);
  });

  it('CREATE TABLE t AS src: a Replicated t_local AS src_local on the path of t_local, and a Distributed t by run', async () => {
    const [local, distributed, ...rest] = await clusterStatements(parser(), copySteps, target);
    expect(rest).toEqual([]);
    expect(local).toEqual({
      sql:
        'CREATE TABLE IF NOT EXISTS steps_0020_local ON CLUSTER trajscope_cluster AS steps_local\n' +
        "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/steps_0020_local/{uuid}', '{replica}', ingested_at)\n" +
        'PARTITION BY toYYYYMM(ts)\n' +
        'ORDER BY (project, run_id, step)\n' +
        'SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 10000',
      table: 'steps_0020_local',
      role: 'local',
    });
    expect(distributed).toEqual({
      sql:
        'CREATE TABLE IF NOT EXISTS steps_0020 ON CLUSTER trajscope_cluster AS steps_0020_local\n' +
        'ENGINE = Distributed(trajscope_cluster, trajscope, steps_0020_local, cityHash64(project, run_id))',
      table: 'steps_0020',
      role: 'distributed',
    });
  });

  it('CREATE TABLE IF NOT EXISTS t AS src of a table without runs: no engine parameters, one shard', async () => {
    const [local, distributed] = await clusterStatements(parser(), 'CREATE TABLE IF NOT EXISTS api_keys_copy AS api_keys ENGINE = ReplacingMergeTree ORDER BY key_id', target);
    expect(local!.sql.split('\n').slice(0, 2)).toEqual([
      'CREATE TABLE IF NOT EXISTS api_keys_copy_local ON CLUSTER trajscope_cluster AS api_keys_local',
      "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/api_keys_copy_local/{uuid}', '{replica}')",
    ]);
    expect(distributed!.sql).toBe(
      'CREATE TABLE IF NOT EXISTS api_keys_copy ON CLUSTER trajscope_cluster AS api_keys_copy_local\n' +
        'ENGINE = Distributed(trajscope_cluster, trajscope, api_keys_copy_local, 0)',
    );
  });

  it('INSERT INTO t … SELECT: the statement itself, through the Distributed table', async () => {
    const statement = 'INSERT INTO steps_0020 SETTINGS distributed_foreground_insert = 1 SELECT * FROM steps';
    const generated = await clusterStatements(parser(), statement, target);
    expect(generated).toEqual([
      { sql: 'INSERT INTO steps_0020\nSETTINGS distributed_foreground_insert = 1\nSELECT *\nFROM steps', table: 'steps_0020', role: 'distributed' },
    ]);
    expect(shape(await tree(generated[0]!.sql))).toEqual(shape(await tree(statement)));
  });

  it('EXCHANGE TABLES a AND b: the local tables ON CLUSTER (the Distributed tables keep their local table names)', async () => {
    const generated = await clusterStatements(parser(), 'EXCHANGE TABLES steps AND steps_0020', target);
    expect(generated).toEqual([{ sql: 'EXCHANGE TABLES steps_local AND steps_0020_local ON CLUSTER trajscope_cluster', table: 'steps_local', role: 'local' }]);
    expect(await parser().format(generated[0]!.sql)).toBe(generated[0]!.sql);
    expect(withoutFormat(await tree(generated[0]!.sql)).children.map((c) => labelOf(c))).toEqual(['Identifier steps_local', 'Identifier steps_0020_local']);
  });

  it('0020_finer_granules.sql: every statement in order, each table copied, exchanged and its old data dropped', async () => {
    const m = loadMigrations().find((x) => x.name === '0020_finer_granules.sql')!;
    const generated = await clusterMigrationStatements(parser(), m.statements, target, m.name);
    const rebuild = (t: string) => [
      `distributed DROP TABLE IF EXISTS ${t}_0020 ON CLUSTER trajscope_cluster SYNC`,
      `local DROP TABLE IF EXISTS ${t}_0020_local ON CLUSTER trajscope_cluster SYNC`,
      `local CREATE TABLE IF NOT EXISTS ${t}_0020_local ON CLUSTER trajscope_cluster AS ${t}_local`,
      `distributed CREATE TABLE IF NOT EXISTS ${t}_0020 ON CLUSTER trajscope_cluster AS ${t}_0020_local`,
      `distributed INSERT INTO ${t}_0020`,
      `local EXCHANGE TABLES ${t}_local AND ${t}_0020_local ON CLUSTER trajscope_cluster`,
      `distributed DROP TABLE ${t}_0020 ON CLUSTER trajscope_cluster SYNC`,
      `local DROP TABLE ${t}_0020_local ON CLUSTER trajscope_cluster SYNC`,
    ];
    expect(generated.map((g) => `${g.role} ${g.sql.split('\n')[0]}`)).toEqual([...rebuild('steps'), ...rebuild('tool_calls')]);
  });
});

describe('statements without a cluster form are refused, naming the statement', () => {
  it.each([
    ['ALTER TABLE steps ADD COLUMN IF NOT EXISTS x UInt8 DEFAULT 0, ADD INDEX IF NOT EXISTS ix(x) TYPE minmax', /mixes column changes \(ADD_COLUMN\)/],
    ['CREATE MATERIALIZED VIEW IF NOT EXISTS v ENGINE = MergeTree ORDER BY a AS SELECT a FROM t', /inner table/],
    ['CREATE TABLE IF NOT EXISTS m (a UInt8) ENGINE = Memory', /engine Memory has no Replicated form/],
    ['CREATE TABLE m AS steps ENGINE = Memory', /engine Memory has no Replicated form/],
    // Filled by its query on every node it is created on.
    ['CREATE TABLE t (a UInt8) ENGINE = MergeTree ORDER BY a AS SELECT 1 AS a', /no cluster form made for a statement of kind CreateQuery/],
    ['CREATE TABLE t AS db.steps ENGINE = ReplacingMergeTree ORDER BY a', /table "db\.steps" is not a plain name/],
    ['CREATE TABLE t CLONE AS steps ENGINE = ReplacingMergeTree ORDER BY a', /expected a column list or CREATE TABLE t AS <table>, the engine formats it as CREATE TABLE t CLONE AS steps/],
    ['RENAME TABLE steps TO steps_old', /\(a RENAME has no cluster form made here\), the engine formats it as RENAME TABLE steps TO steps_old/],
    ['EXCHANGE TABLES a AND b, c AND d', /expected EXCHANGE TABLES <table> AND <table>/],
    ['EXCHANGE TABLES db.a AND db.b', /expected EXCHANGE TABLES <table> AND <table>/],
    ['EXCHANGE DICTIONARIES a AND b', /expected EXCHANGE TABLES <table> AND <table>/],
    ['DROP VIEW IF EXISTS v', /expected DROP TABLE \[IF EXISTS\] v .*, the engine formats it as DROP VIEW IF EXISTS v/],
    ['DROP DATABASE d', /expected DROP TABLE \[IF EXISTS\] d /],
    ['DROP TABLE IF EXISTS db.steps', /table "db steps" is not a plain name/],
    ['DROP TABLE a, b', /table "" is not a plain name/],
    ["INSERT INTO FUNCTION remote('h', db, t) SELECT 1", /expected INSERT INTO <table> … SELECT/],
    ['INSERT INTO db.steps SELECT * FROM steps', /expected INSERT INTO <table> … SELECT/],
  ])('%s', async (statement, message) => {
    const err = await clusterMigrationStatements(parser(), [statement], target, '0099_example.sql').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClusterStatementError);
    expect((err as Error).message).toMatch(/^0099_example\.sql, statement 1: /);
    expect((err as Error).message).toMatch(message);
  });

  it('refuses a cluster name that is not a plain name', async () => {
    await expect(clusterStatements(parser(), SCHEMA_MIGRATIONS_TABLE, { cluster: 'a b', database: 'x' })).rejects.toThrow(/cluster "a b" is not a plain name/);
  });
});

describe('migrate() and table commands', () => {
  /** The migrated engine, seen as if CLICKHOUSE_CLUSTER were set (everything else is the engine's). */
  function asCluster(storage: Storage): Storage {
    const view: Storage = Object.create(storage);
    Object.defineProperty(view, 'config', { value: { ...storage.config, cluster: target.cluster } });
    return view;
  }

  it('without a cluster applies each migration statement as written, byte for byte', async () => {
    for (const m of loadMigrations()) expect(await migrationStatements(migrated.storage, m.name, m.statements)).toEqual(m.statements);
    expect(optimizeFinalSql('run_analysis', undefined)).toBe('OPTIMIZE TABLE run_analysis FINAL');
  });

  it('with a cluster makes the cluster statements, which the engine refuses for want of the cluster', async () => {
    const m = loadMigrations()[0]!;
    const statements = await migrationStatements(asCluster(migrated.storage), m.name, m.statements);
    expect(statements[0]).toMatch(/^CREATE TABLE IF NOT EXISTS runs_local ON CLUSTER trajscope_cluster\n/);
    await expect(migrated.storage.command(statements[0]!)).rejects.toThrow(/Requested cluster 'trajscope_cluster' not found/);
    const [row] = await migrated.storage.query<{ n: string }>(
      "SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'runs_local'",
    );
    expect(Number(row!.n)).toBe(0);
  });

  it('with a cluster refuses a database migrated without one, before any statement', async () => {
    const before = await migrated.storage.query<{ name: string }>('SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name');
    const err = await migrate(asCluster(migrated.storage)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect((err as Error).message).toMatch(/was migrated without it \(schema_migrations is a ReplacingMergeTree table\)/);
    expect(await migrated.storage.query('SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name')).toEqual(before);
  });

  it('OPTIMIZE on a cluster goes to the local table ON CLUSTER, and parses', async () => {
    const sql = optimizeFinalSql('run_analysis', target.cluster);
    expect(sql).toBe('OPTIMIZE TABLE run_analysis_local ON CLUSTER trajscope_cluster FINAL');
    expect(await parser().format(sql)).toBe(sql);
    expect(labelOf(await tree(sql))).toMatch(/^OptimizeQuery /);
  });

  it('queries on a cluster carry settings the engine knows and takes (none without a cluster)', async () => {
    const settings = clusterSettings({ database: 'default', dataDir: '', url: 'http://127.0.0.1:8123', cluster: target.cluster });
    expect(Object.keys(settings).sort()).toEqual(['distributed_foreground_insert', 'distributed_product_mode']);
    const rows = await migrated.storage.query<{ n: string }>('SELECT 1 AS n', {}, settings);
    expect(rows).toEqual([{ n: 1 }]);
    expect(clusterSettings({ database: 'default', dataDir: '', url: 'http://127.0.0.1:8123' })).toEqual({});
  });

  it('refuses the embedded engine with a cluster', async () => {
    const dir = newDataDir();
    try {
      const opening = openStorage({ dataDir: dir, database: 'default', cluster: 'trajscope_cluster' });
      await expect(opening).rejects.toThrow(StorageError);
      await expect(opening).rejects.toThrow(/needs a ClickHouse server \(CLICKHOUSE_URL\)/);
    } finally {
      removeDataDir(dir);
    }
  });
});
