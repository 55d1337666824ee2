// The engine's parser, asked through the storage: the canonical text of a statement
// (formatQuery) and the tree it parses into (EXPLAIN AST). Nothing is executed but the parse,
// so this works the same on the embedded engine and on a server.
import type { Storage } from '../gateway.js';

export interface StatementParser {
  /** The statement as the engine formats it (one canonical text per tree). */
  format(statement: string): Promise<string>;
  /** The lines of EXPLAIN AST for the statement. */
  explain(statement: string): Promise<string[]>;
}

export function engineParser(storage: Storage): StatementParser {
  return {
    async format(statement) {
      const [row] = await storage.query<{ sql: string }>('SELECT formatQuery({statement:String}) AS sql', { statement });
      if (row === undefined) throw new Error('formatQuery returned no row');
      return row.sql;
    },
    async explain(statement) {
      // EXPLAIN takes the statement itself, not a parameter; statements come from the migration
      // files and from the generator, never from a request.
      // The parser gives a trailing FORMAT to the explained statement, not to EXPLAIN: this one
      // lets the FORMAT the client appends apply to the EXPLAIN's own lines (the explained
      // statement shows it as one more Identifier under its root, which nothing here reads).
      const rows = await storage.query<{ explain: string }>(`EXPLAIN AST ${statement} FORMAT JSONEachRow`);
      return rows.map((r) => r.explain);
    },
  };
}
