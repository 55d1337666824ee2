// What a console statement is, decided from the engine's own parse of it, never from its text:
// the tree that `EXPLAIN AST` prints for the canonical text formatQuery() made of the query
// (statement-check.ts asks the engine for both). The console runs one SELECT tree (an admin
// also SHOW, DESCRIBE, and EXPLAIN of a SELECT), with no INTO OUTFILE, no FORMAT but ours, no
// SETTINGS and no function that reaches files, URLs or other servers. ClickHouse's readonly=1
// is a further wall (it does not stop INTO OUTFILE or the file() function). Pure.

import { parseExplainAst, StatementShapeError, type AstNode } from '../../storage/statement-ast.js';

export class SqlRejectedError extends Error {
  override readonly name = 'SqlRejectedError';
}

const UNCHECKABLE =
  "the console could not check this query: the engine's parse of it has a shape the console does not know " +
  '(names or aliases with line breaks or parentheses in them are not supported)';

/**
 * The lines of `EXPLAIN AST` as a tree, or SqlRejectedError when they do not read as exactly one
 * tree whose every node has the children it declares (storage/statement-ast.ts). Fails closed.
 */
export function parseAstDump(lines: readonly string[]): AstNode {
  try {
    return parseExplainAst(lines);
  } catch (err) {
    if (err instanceof StatementShapeError) throw new SqlRejectedError(UNCHECKABLE);
    throw err;
  }
}

export type StatementKind = 'select' | 'show' | 'describe' | 'explain';

export interface TreeRules {
  /** A key bound to a project: SELECT trees only (its tables are checked by project-scope.ts). */
  project: boolean;
  /** The engine's table functions (lower case, from system.table_functions). */
  tableFunctions: ReadonlySet<string>;
}

const SELECT_TREES = new Set(['SelectWithUnionQuery', 'SelectIntersectExceptQuery']);
/**
 * Table functions that read nothing outside the database: generators, inline values, other
 * tables of the database. A project key gets fewer of them (project-scope.ts).
 */
const LOCAL_TABLE_FUNCTIONS = new Set([
  'numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'generate_series', 'generateseries', 'primes', 'values',
  'generaterandom', 'null', 'merge', 'view', 'viewifpermitted', 'loop', 'format',
]);
/** Ordinary functions that read files or call out (file() reads any file the process may read). */
const OUTSIDE_FUNCTIONS = new Set(['file', 'catboostevaluate', 'aiembed', 'aigenerate', 'aiclassify', 'aiextract', 'aitranslate']);

/** Walks `node` and its descendants, parents first. */
function* walk(node: AstNode): Generator<AstNode> {
  yield node;
  for (const c of node.children) yield* walk(c);
}

/** The function name of a `Function` line (`numbers (alias a)` → `numbers`). */
function functionName(node: AstNode): string {
  return node.text.split(' ', 1)[0] ?? '';
}

/**
 * Checks the tree of one statement against what the console runs; returns its kind or throws
 * SqlRejectedError saying what was refused.
 */
export function checkStatementTree(root: AstNode, rules: TreeRules): StatementKind {
  const kind = statementKind(root, rules.project);
  for (const node of walk(root)) {
    // INTO OUTFILE (with its COMPRESSION and LEVEL) is a Literal child of the statement node, and
    // of a statement inside EXPLAIN; nothing else puts a Literal there.
    if ((node === root || SELECT_TREES.has(node.type) || node.type === 'Explain') && node.children.some((c) => c.type === 'Literal')) {
      throw new SqlRejectedError('INTO OUTFILE is not allowed here; the console answers in the page (download the result from the console page)');
    }
    // SETTINGS clauses are `Set` nodes; EXPLAIN's own options (EXPLAIN PLAN header = 1) are one
    // too, and the engine accepts only its fixed list of options there.
    if (node.type === 'Set' && !(node.parent === root && root.type === 'Explain')) {
      throw new SqlRejectedError('SETTINGS clauses are not allowed here; limits are fixed by the server');
    }
  }
  checkFormat(root);
  for (const node of walk(root)) {
    if (node.type !== 'Function') continue;
    const name = functionName(node);
    const lower = name.toLowerCase();
    const tableFunction = node.parent?.type === 'TableExpression';
    if (OUTSIDE_FUNCTIONS.has(lower) || (rules.tableFunctions.has(lower) && !LOCAL_TABLE_FUNCTIONS.has(lower))) {
      throw new SqlRejectedError(
        `the ${tableFunction ? 'table function' : 'function'} ${name}() reaches outside the database (files, URLs, other servers) or is not known to be safe, and is not allowed here`,
      );
    }
    if (tableFunction && !rules.project && !LOCAL_TABLE_FUNCTIONS.has(lower)) {
      throw new SqlRejectedError(`the table function ${name}() is not allowed here; the console allows ${[...LOCAL_TABLE_FUNCTIONS].join(', ')}`);
    }
  }
  return kind;
}

function statementKind(root: AstNode, project: boolean): StatementKind {
  if (SELECT_TREES.has(root.type)) return 'select';
  if (project) throw new SqlRejectedError(`keys bound to a project may run SELECT and WITH queries only (this is ${article(root.type)})`);
  if (root.type === 'Explain') {
    const explained = root.children.filter((c) => c.type !== 'Set' && c.type !== 'Literal' && c.type !== 'Identifier');
    if (explained.length !== 1 || !SELECT_TREES.has(explained[0]!.type)) {
      throw new SqlRejectedError(`EXPLAIN is allowed for SELECT queries only (this explains ${explained.map((c) => article(c.type)).join(', ') || 'nothing'})`);
    }
    return 'explain';
  }
  if (root.type.startsWith('Show')) return 'show';
  if (root.type === 'DescribeQuery') return 'describe';
  throw new SqlRejectedError(`only SELECT, WITH, SHOW, DESCRIBE and EXPLAIN statements can run in the console (this is ${article(root.type)})`);
}

/**
 * A FORMAT clause is an Identifier child of the statement node (the tree is of the statement
 * alone, nothing appended). SELECT, EXPLAIN and DESCRIBE nodes have no other Identifier
 * children; SHOW nodes name their database or table with some, so a FORMAT of SHOW is left to
 * the run: the console appends its own FORMAT there, and two are a syntax error.
 */
function checkFormat(root: AstNode): void {
  const holders = [...walk(root)].filter((n) => n === root || SELECT_TREES.has(n.type));
  const formatted = holders.some((n) => !n.type.startsWith('Show') && n.children.some((c) => c.type === 'Identifier'));
  if (formatted) throw new SqlRejectedError('FORMAT clauses are not allowed here; the console answers in JSON (download CSV from the console page)');
}

/** `DropQuery` → `a DROP query`, `ShowTables` → `a SHOW TABLES query`: what the engine read. */
function article(type: string): string {
  const words = type
    .replace(/Query$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
  return `${/^[AEIOU]/.test(words) ? 'an' : 'a'} ${words} statement`;
}

/**
 * What the engine's parser said about a query that it could not read as one statement, as the
 * console tells it: several statements, an empty query, or the syntax error with its position.
 */
export function parseErrorMessage(engineMessage: string): string {
  const message = engineMessage
    .replace(/:?\s*In scope SELECT formatQuery\([\s\S]*$/, '')
    .trim()
    .replace(/[.:]$/, '');
  if (/Multi-statements are not allowed/.test(message)) {
    return `send one statement at a time (the engine read more than one: ${message.replace(/^Syntax error \(Multi-statements are not allowed\):\s*/, '')})`;
  }
  if (/^Empty query\b/.test(message)) return 'the query is empty';
  return message;
}
