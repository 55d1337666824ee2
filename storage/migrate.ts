// Applies the numbered .sql files of schemas/clickhouse/ in order, each once, recorded in
// schema_migrations. On a cluster (CLICKHOUSE_CLUSTER) each statement is applied in its cluster
// form (storage/cluster-ddl.ts), made from the same files.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoPath } from '../schemas/paths.js';
import { clusterMigrationStatements, type ClusterTarget } from './cluster-ddl.js';
import { StorageError, type Storage } from './gateway.js';
import { engineParser } from './queries/statement-parser-queries.js';

export interface Migration {
  name: string;
  statements: string[];
}

const MIGRATION_FILE = /^\d{4}_[a-z0-9_]+\.sql$/;

export function loadMigrations(dir = repoPath('schemas', 'clickhouse')): Migration[] {
  return readdirSync(dir)
    .filter((f) => MIGRATION_FILE.test(f))
    .sort()
    .map((name) => ({ name, statements: splitStatements(readFileSync(join(dir, name), 'utf8')) }));
}

/** Splits a file into statements at semicolons that end a line; comment lines are dropped. */
export function splitStatements(sql: string): string[] {
  return sql
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n')
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The table that records applied migrations (created before any migration runs). */
export const SCHEMA_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations
     (name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))
     ENGINE = ReplacingMergeTree ORDER BY name`;

/**
 * The statements that apply a migration to this storage: the file's own, or on a cluster their
 * cluster forms (asked of the server's parser, so nothing but the parse runs before they do).
 */
export async function migrationStatements(storage: Storage, name: string, statements: readonly string[]): Promise<string[]> {
  const cluster = storage.config.cluster;
  if (!cluster) return [...statements];
  const target: ClusterTarget = { cluster, database: storage.config.database };
  return (await clusterMigrationStatements(engineParser(storage), statements, target, name)).map((s) => s.sql);
}

/**
 * Runs the migrations not yet applied; returns the names it applied. `onApply` hears each name as
 * it starts, and whether the database had migrations before (an upgrade: a migration that copies
 * a table takes minutes at millions of rows). One process at a time is
 * assumed: two migrating at once may both apply a migration, which the IF NOT EXISTS of every
 * statement makes harmless for the statements that have it; not for a migration that rebuilds a
 * table (0020_finer_granules.sql), so a deployment runs `migrate` once, from one process, before
 * starting the others (docs/deployment.md, "Upgrading").
 */
export async function migrate(storage: Storage, migrations = loadMigrations(), onApply?: (name: string, upgrade: boolean) => void): Promise<string[]> {
  if (storage.config.cluster) await refusePlainDatabase(storage);
  for (const statement of await migrationStatements(storage, 'schema_migrations', [SCHEMA_MIGRATIONS_TABLE])) await storage.command(statement);
  const done = new Set(
    (await storage.query<{ name: string }>('SELECT name FROM schema_migrations FINAL')).map((r) => r.name),
  );
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.name)) continue;
    onApply?.(m.name, done.size > 0);
    for (const statement of await migrationStatements(storage, m.name, m.statements)) await storage.command(statement);
    await storage.insert('schema_migrations', [{ name: m.name }]);
    applied.push(m.name);
  }
  return applied;
}

/**
 * A database migrated without CLICKHOUSE_CLUSTER has plain tables under the names the cluster
 * form gives its Distributed tables: every CREATE … IF NOT EXISTS would pass over them and the
 * recorded migrations would not run again, leaving the database as it was while looking migrated.
 */
async function refusePlainDatabase(storage: Storage): Promise<void> {
  const [row] = await storage.query<{ engine: string }>(
    "SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'schema_migrations'",
  );
  if (row && row.engine !== 'Distributed') {
    throw new StorageError(
      `CLICKHOUSE_CLUSTER is set, but database ${storage.config.database} was migrated without it (schema_migrations is a ${row.engine} table): ` +
        'the cluster tables are made for a new database; copy the data into one migrated with CLICKHOUSE_CLUSTER',
    );
  }
}
