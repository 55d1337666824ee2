// The schema browser's data as completions for the SQL editor: tables with their columns
// (CodeMirror's SQL `schema` option takes this shape), and the columns of the tables a query
// reads, so unqualified column names complete too. Pure functions only.
import type { SqlSchemaTable } from '../../../schemas/api.js';

/** A completion option (structurally CodeMirror's `Completion`). */
export interface CompletionOption {
  label: string;
  type: string;
  detail?: string;
  info?: string;
  boost?: number;
}

export interface TableNamespace {
  self: CompletionOption;
  children: CompletionOption[];
}

function columnOption(c: SqlSchemaTable['columns'][number], table?: string): CompletionOption {
  return {
    label: c.name,
    type: 'property',
    detail: table ? `${c.type} · ${table}` : c.type,
    ...(c.description ? { info: c.description } : {}),
  };
}

/** `{steps: {self: {label: 'steps', …}, children: [columns]}}` for lang-sql's `schema`. */
export function completionSchema(tables: readonly SqlSchemaTable[]): Record<string, TableNamespace> {
  const out: Record<string, TableNamespace> = {};
  for (const t of tables) {
    out[t.name] = {
      self: { label: t.name, type: 'type', detail: t.engine, ...(t.description ? { info: t.description } : {}) },
      children: t.columns.map((c) => columnOption(c)),
    };
  }
  return out;
}

/** Masks comments and string literals so that words inside them are not read as SQL. */
function maskText(sql: string): string {
  return sql.replace(/--[^\n]*|\/\*[\s\S]*?(\*\/|$)|'(?:[^'\\]|\\.|'')*('|$)/g, (m) => ' '.repeat(m.length));
}

/** Names of known tables that the query reads (after FROM or JOIN), in order of appearance. */
export function tablesInQuery(sql: string, known: Iterable<string>): string[] {
  const names = new Set(known);
  const found: string[] = [];
  const re = /\b(?:from|join)\s+(?:[`"]?\w+[`"]?\s*\.\s*)?[`"]?(\w+)[`"]?/gi;
  for (const m of maskText(sql).matchAll(re)) {
    const name = m[1];
    if (names.has(name) && !found.includes(name)) found.push(name);
  }
  return found;
}

/**
 * Columns of the tables the query reads, for completing a bare word: each column once (the
 * first table that has it wins), with its type and table in the detail.
 */
export function columnsInScope(sql: string, tables: readonly SqlSchemaTable[]): CompletionOption[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const used = tablesInQuery(sql, byName.keys());
  const seen = new Set<string>();
  const out: CompletionOption[] = [];
  for (const name of used) {
    for (const c of byName.get(name)?.columns ?? []) {
      if (seen.has(c.name)) continue;
      seen.add(c.name);
      out.push({ ...columnOption(c, used.length > 1 ? name : undefined), boost: 1 });
    }
  }
  return out;
}

/** Whether the schema has a table with all these columns. */
export function hasColumns(tables: readonly SqlSchemaTable[], table: string, columns: readonly string[]): boolean {
  const t = tables.find((x) => x.name === table);
  return !!t && columns.every((c) => t.columns.some((x) => x.name === c));
}

/** Text to insert for a name: quoted with backticks unless it is a plain identifier. */
export function quoteIdentifier(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}
