// The engine's own view of a statement: the tree `EXPLAIN AST` prints, read back into nodes, and
// what the cluster statements need from it (the statement's kind, the table it names, its engine,
// the tables a view reads, the names a DROP, INSERT or EXCHANGE holds). Nothing here reads SQL
// text itself: every fact comes from the tree the engine's parser built, so a statement the
// parser reads differently than we would is never misjudged.

/** One node of `EXPLAIN AST`: its type (first word), the rest of its line, its parent and children. */
export interface AstNode {
  type: string;
  text: string;
  parent: AstNode | null;
  children: AstNode[];
}

export class StatementShapeError extends Error {
  override readonly name = 'StatementShapeError';
}

/** `<depth spaces><Type>[ <text>][ (children N)]`; a type may be nested (`ColumnsReplaceTransformer::Replacement`). */
const LINE = /^( *)([A-Za-z][A-Za-z0-9_]*(?:::[A-Za-z][A-Za-z0-9_]*)*)((?= |$).*?)(?: \(children (\d+)\))?$/;

/**
 * The lines of `EXPLAIN AST` as a tree (one node a line, one space of indent per level). The dump
 * prints names as they are, so a name holding a line break would add lines of its own; every
 * node's declared number of children must match the lines under it and there is exactly one
 * root, so an added line cannot go unnoticed (it always gives some node one child more than it
 * declares, or makes a second root). Fails closed with StatementShapeError.
 */
export function parseExplainAst(lines: readonly string[]): AstNode {
  const stack: AstNode[] = [];
  const declared = new Map<AstNode, number>();
  let root: AstNode | null = null;
  lines.forEach((line, i) => {
    const m = LINE.exec(line);
    if (!m) throw new StatementShapeError(`EXPLAIN AST line ${i + 1} is not a node`);
    const depth = m[1]!.length;
    if (depth === 0 && root) throw new StatementShapeError('EXPLAIN AST gave more than one tree');
    if (depth > stack.length) throw new StatementShapeError(`EXPLAIN AST line ${i + 1} is indented under no node`);
    stack.length = depth;
    const parent = depth === 0 ? null : stack[depth - 1]!;
    const node: AstNode = { type: m[2]!, text: m[3]!.slice(1), parent, children: [] };
    declared.set(node, m[4] === undefined ? 0 : Number(m[4]));
    if (parent) parent.children.push(node);
    else root = node;
    stack.push(node);
  });
  if (!root) throw new StatementShapeError('EXPLAIN AST gave no tree');
  for (const [node, n] of declared) {
    if (node.children.length !== n) throw new StatementShapeError(`EXPLAIN AST: ${labelOf(node)} declares ${n} children and has ${node.children.length}`);
  }
  return root;
}

/** The node's line without its children count: `Function ReplacingMergeTree`. */
export function labelOf(node: AstNode): string {
  return node.text ? `${node.type} ${node.text}` : node.type;
}

/** What follows a node's kind: `CreateQuery steps` → `steps` (an ALTER prints `AlterQuery  runs`, an empty database first). */
export function nodeName(node: AstNode): string {
  return node.text.replace(/\s+/g, ' ').trim();
}

function child(node: AstNode, kind: string): AstNode | undefined {
  return node.children.find((c) => c.type === kind || labelOf(c) === kind);
}

/** Every node under `node` (itself included) of this kind, depth first. */
export function findAll(node: AstNode, kind: string): AstNode[] {
  const out: AstNode[] = [];
  const walk = (n: AstNode) => {
    if (n.type === kind) out.push(n);
    n.children.forEach(walk);
  };
  walk(node);
  return out;
}

export type StatementInfo =
  | {
      kind: 'create_table';
      table: string;
      engine: string;
      /** Arguments of the engine as the tree names them (Identifier x → `x`). */
      engineArgs: string[];
      columns: string[];
      /**
       * No column list (`CREATE TABLE t AS src ENGINE = …`): the columns are those of the table
       * named after AS, which the tree does not hold (the engine's formatted first line does).
       */
      asTable: boolean;
    }
  | { kind: 'create_materialized_view'; view: string; reads: string[] }
  | { kind: 'alter'; table: string; commands: string[] }
  /** DROP of one object: what it is (table, view, database, …) only the formatted text says. */
  | { kind: 'drop'; name: string }
  /** INSERT: the names of its target (one for `t`, two for `db.t`, none for a table function). */
  | { kind: 'insert'; into: string[]; select: boolean }
  /** RENAME or EXCHANGE (one node for both): the names it holds, in order. */
  | { kind: 'rename'; names: string[] }
  | { kind: 'other'; node: string };

/**
 * What a statement is, from its tree. `isMaterializedView` comes from the engine's formatted text
 * (the tree prints views and tables alike as CreateQuery).
 */
export function describeStatement(ast: AstNode, isMaterializedView: boolean): StatementInfo {
  const kind = ast.type;
  if (kind === 'CreateQuery') {
    const name = nodeName(ast);
    if (isMaterializedView) {
      const select = child(ast, 'SelectWithUnionQuery');
      if (!select) throw new StatementShapeError(`materialized view ${name} has no SELECT`);
      return { kind: 'create_materialized_view', view: name, reads: findAll(select, 'TableIdentifier').map(nodeName) };
    }
    const storage = child(ast, 'Storage definition');
    const columns = child(ast, 'Columns definition');
    const engine = storage?.children[0];
    if (!storage || !engine || engine.type !== 'Function') return { kind: 'other', node: labelOf(ast) };
    // A table made from a query's result (AS SELECT, with or without a column list) is also
    // filled by it: not a table like the others. Without a column list and a query, it copies
    // another table's columns (AS t).
    if (child(ast, 'SelectWithUnionQuery')) return { kind: 'other', node: labelOf(ast) };
    const args = child(engine, 'ExpressionList')?.children ?? [];
    return {
      kind: 'create_table',
      table: name,
      engine: nodeName(engine),
      engineArgs: args.map((a) => {
        if (a.type !== 'Identifier') throw new StatementShapeError(`table ${name}: engine argument ${labelOf(a)} is not a column name`);
        return nodeName(a);
      }),
      columns: columns ? findAll(columns, 'ColumnDeclaration').map(nodeName) : [],
      asTable: !columns,
    };
  }
  if (kind === 'AlterQuery') {
    const list = child(ast, 'ExpressionList');
    return { kind: 'alter', table: nodeName(ast), commands: (list?.children ?? []).map(nodeName) };
  }
  // `DropQuery <database> <table>`: an empty database prints as nothing (`DropQuery  t`).
  if (kind === 'DropQuery') return { kind: 'drop', name: nodeName(ast) };
  if (kind === 'InsertQuery') {
    // The target is the Identifier children (database, table); a table function is a Function
    // child instead, a column list an ExpressionList.
    const into = ast.children.filter((c) => c.type === 'Identifier').map(nodeName);
    return { kind: 'insert', into, select: child(ast, 'SelectWithUnionQuery') !== undefined };
  }
  if (kind === 'Rename') {
    // The last Identifier is the output format every explained statement is given (see
    // engineParser), not a name of the statement.
    const names = ast.children.filter((c) => c.type === 'Identifier');
    if (names.length !== ast.children.length) return { kind: 'other', node: labelOf(ast) };
    return { kind: 'rename', names: names.slice(0, -1).map(nodeName) };
  }
  return { kind: 'other', node: labelOf(ast) };
}
