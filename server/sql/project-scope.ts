// What a non-admin key's console query may read, enforced by the engine: its connection carries
// `additional_table_filters` (project = the key's project on every table that has a project
// column, applied by ClickHouse to every read of those tables, in joins, subqueries and views
// alike) set before readonly=1, and before a query runs, ClickHouse's own analysis of it
// (EXPLAIN QUERY TREE) must name no table outside those tables and no table function but
// number generators. Pure.

import { sqlString } from '../../storage/sql-literal.js';

export { sqlString };

/** Tables with a project column that non-admin keys still may not read. */
export const PROJECT_HIDDEN_TABLES = new Set(['api_keys', 'sql_query_log', 'schema_migrations']);
/** Table functions that generate values and read nothing. */
const SAFE_TABLE_FUNCTIONS = new Set(['numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'generate_series', 'generateseries', 'values']);
/** System tables that hold no data (SELECT without FROM reads system.one). */
const SAFE_SYSTEM_TABLES = new Set(['system.one', 'system.numbers', 'system.numbers_mt', 'system.zeros', 'system.zeros_mt']);
/** Functions that read other objects by name (dictionaries, Join tables) or files. */
const FORBIDDEN_FUNCTION = /^(dict|joinget|file$|url$)/i;


/** The value of the additional_table_filters setting: `project = '<p>'` on each table. */
export function tableFiltersSetting(tables: readonly string[], project: string): string {
  const filter = `project = ${sqlString(project)}`;
  return `{${tables.map((t) => `${sqlString(t)}: ${sqlString(filter)}`).join(', ')}}`;
}

export class ForbiddenReadError extends Error {
  override readonly name = 'ForbiddenReadError';
}

/**
 * Checks the lines of `EXPLAIN QUERY TREE` against the tables a key may read (`db.table`).
 * Fails closed: a table line it cannot parse is refused. Throws ForbiddenReadError.
 */
export function checkQueryTree(lines: readonly string[], allowed: ReadonlySet<string>): void {
  for (const line of lines) {
    const t = line.trimStart();
    if (t.startsWith('TABLE id:')) {
      const m = t.match(/^TABLE id: \d+, (?:alias: __table\d+, )?table_name: ([^\s,]+)(?:, final: [01])?(?:, sample_size: [\d /]+)?(?:, sample_offset: [\d /]+)?$/);
      if (!m) throw new ForbiddenReadError('the query reads a table this key cannot be checked against');
      const name = m[1]!;
      if (!allowed.has(name) && !SAFE_SYSTEM_TABLES.has(name)) {
        throw new ForbiddenReadError(`${name} is not readable with this key; it may read only its project's tables (${shortNames(allowed)})`);
      }
    } else if (t.startsWith('TABLE_FUNCTION id:')) {
      const m = t.match(/^TABLE_FUNCTION id: \d+, (?:alias: __table\d+, )?table_function_name: (\w+)$/);
      const fn = m?.[1];
      if (!fn || !SAFE_TABLE_FUNCTIONS.has(fn.toLowerCase())) {
        throw new ForbiddenReadError(`the table function ${fn ?? '(unknown)'}() is not allowed with this key; it may read only its project's tables`);
      }
    } else if (t.startsWith('FUNCTION id:')) {
      const fn = t.match(/^FUNCTION id: \d+, function_name: ([^,\s]+)/)?.[1];
      if (!fn) throw new ForbiddenReadError('the query calls a function this key cannot be checked against');
      if (FORBIDDEN_FUNCTION.test(fn)) throw new ForbiddenReadError(`the function ${fn}() reads outside the project's tables and is not allowed with this key`);
    }
  }
}

function shortNames(allowed: ReadonlySet<string>): string {
  return [...allowed].map((t) => t.slice(t.indexOf('.') + 1)).sort().join(', ');
}
