// Applies the numbered .sql files of schemas/clickhouse/ in order, each once, recorded in
// schema_migrations.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoPath } from '../schemas/paths.js';
import type { Storage } from './gateway.js';

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

/** Runs the migrations not yet applied; returns the names it applied. */
export async function migrate(storage: Storage, migrations = loadMigrations()): Promise<string[]> {
  await storage.command(
    `CREATE TABLE IF NOT EXISTS schema_migrations
     (name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))
     ENGINE = ReplacingMergeTree ORDER BY name`,
  );
  const done = new Set(
    (await storage.query<{ name: string }>('SELECT name FROM schema_migrations FINAL')).map((r) => r.name),
  );
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.name)) continue;
    for (const statement of m.statements) await storage.command(statement);
    await storage.insert('schema_migrations', [{ name: m.name }]);
    applied.push(m.name);
  }
  return applied;
}
