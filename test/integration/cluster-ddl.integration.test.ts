// The cluster statements (storage/cluster-ddl.ts) made from the real migrations, checked by the
// real engine's parser (chDB): every statement of every migration gets a cluster form that parses
// and that the engine formats back to itself, the key tables get a Replicated engine with their
// own ORDER BY and a Distributed table sharded by run, a materialized view reads and writes the
// local tables. The embedded engine has no cluster (no remote_servers, no ZooKeeper), so no
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
        expect(nodeName(ast), where).toBe(g.table);
        expect(g.sql.split('\n')[0], where).toContain(` ON CLUSTER ${target.cluster}`);
        // The local statements name the local tables only; the Distributed ones the shared names.
        expect(g.table.endsWith('_local'), where).toBe(g.role === 'local');
      }
    }
  });

  it('makes each table a Replicated local table with its own columns and keys, and a Distributed table over it', async () => {
    const p = parser();
    let tables = 0;
    for (const { statement, generated } of await allClusterStatements()) {
      const original = withoutFormat(await tree(statement));
      if (!labelOf(original).startsWith('CreateQuery') || !original.children.some((c) => labelOf(c).startsWith('Storage definition'))) continue;
      tables++;
      const [local, distributed] = generated;
      expect(generated.map((g) => g.role)).toEqual(['local', 'distributed']);
      const localAst = withoutFormat(await tree(local!.sql));
      // Same columns, same PARTITION BY / ORDER BY / TTL / SETTINGS: only the engine differs.
      expect(shape(at(localAst, 'Columns definition'))).toEqual(shape(at(original, 'Columns definition')));
      expect(storageOf(localAst).children.slice(1).map(shape)).toEqual(storageOf(original).children.slice(1).map(shape));
      const engine = storageOf(original).children[0]!;
      const replicated = storageOf(localAst).children[0]!;
      expect(labelOf(replicated)).toBe(`Function Replicated${nodeName(engine)}`);
      const args = replicated.children[0]?.children.map((c) => labelOf(c)) ?? [];
      expect(args.slice(0, 2)).toEqual([`Literal '/clickhouse/tables/{shard}/{database}/${local!.table}'`, "Literal '{replica}'"]);
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

describe('statements without a cluster form are refused, naming the statement', () => {
  it.each([
    ['ALTER TABLE steps ADD COLUMN IF NOT EXISTS x UInt8 DEFAULT 0, ADD INDEX IF NOT EXISTS ix(x) TYPE minmax', /mixes column changes \(ADD_COLUMN\)/],
    ['CREATE MATERIALIZED VIEW IF NOT EXISTS v ENGINE = MergeTree ORDER BY a AS SELECT a FROM t', /inner table/],
    ['CREATE TABLE IF NOT EXISTS m (a UInt8) ENGINE = Memory', /engine Memory has no Replicated form/],
    ['DROP TABLE IF EXISTS steps', /no cluster form made for a statement of kind DropQuery/],
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
