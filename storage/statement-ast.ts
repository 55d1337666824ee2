// The engine's own view of a statement: the tree `EXPLAIN AST` prints, read back into nodes, and
// what the cluster statements need from it (the statement's kind, the table it names, its engine,
// the tables a view reads). Nothing here reads SQL text itself: every fact comes from the tree
// the engine's parser built, so a statement the parser reads differently than we would is never
// misjudged.

export interface AstNode {
  /** The node's kind and name as printed, e.g. `CreateQuery steps`, `Function ReplacingMergeTree`. */
  label: string;
  children: AstNode[];
}

export class StatementShapeError extends Error {
  override readonly name = 'StatementShapeError';
}

/** Builds the tree from EXPLAIN AST lines (one node a line, one space of indent per level). */
export function parseExplainAst(lines: readonly string[]): AstNode {
  const root: AstNode = { label: '', children: [] };
  const stack: { depth: number; node: AstNode }[] = [{ depth: -1, node: root }];
  for (const line of lines) {
    if (line.trim() === '') continue;
    const depth = line.length - line.trimStart().length;
    // The engine notes "(children N)" and "(alias a)" after a label; only the label counts here.
    const label = line
      .trim()
      .replace(/ \(children \d+\)$/, '')
      .replace(/\s+/g, ' ');
    const node: AstNode = { label, children: [] };
    while (stack.length > 1 && stack[stack.length - 1]!.depth >= depth) stack.pop();
    stack[stack.length - 1]!.node.children.push(node);
    stack.push({ depth, node });
  }
  const [top] = root.children;
  if (!top || root.children.length !== 1) throw new StatementShapeError(`EXPLAIN AST gave ${root.children.length} trees, expected one`);
  return top;
}

/** The word after a node's kind: `CreateQuery steps` → `steps`. */
export function nodeName(node: AstNode): string {
  return node.label.split(' ').slice(1).join(' ');
}

function kindOf(node: AstNode): string {
  return node.label.split(' ')[0] ?? '';
}

function child(node: AstNode, kind: string): AstNode | undefined {
  return node.children.find((c) => kindOf(c) === kind || c.label === kind);
}

/** Every node under `node` (itself included) of this kind, depth first. */
export function findAll(node: AstNode, kind: string): AstNode[] {
  const out: AstNode[] = [];
  const walk = (n: AstNode) => {
    if (kindOf(n) === kind) out.push(n);
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
    }
  | { kind: 'create_materialized_view'; view: string; reads: string[] }
  | { kind: 'alter'; table: string; commands: string[] }
  | { kind: 'other'; node: string };

/**
 * What a statement is, from its tree. `isMaterializedView` comes from the engine's formatted text
 * (the tree prints views and tables alike as CreateQuery).
 */
export function describeStatement(ast: AstNode, isMaterializedView: boolean): StatementInfo {
  const kind = kindOf(ast);
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
    if (!storage || !engine || kindOf(engine) !== 'Function' || !columns) return { kind: 'other', node: ast.label };
    const args = child(engine, 'ExpressionList')?.children ?? [];
    return {
      kind: 'create_table',
      table: name,
      engine: nodeName(engine),
      engineArgs: args.map((a) => {
        if (kindOf(a) !== 'Identifier') throw new StatementShapeError(`table ${name}: engine argument ${a.label} is not a column name`);
        return nodeName(a);
      }),
      columns: findAll(columns, 'ColumnDeclaration').map(nodeName),
    };
  }
  if (kind === 'AlterQuery') {
    const list = child(ast, 'ExpressionList');
    return { kind: 'alter', table: nodeName(ast), commands: (list?.children ?? []).map(nodeName) };
  }
  return { kind: 'other', node: ast.label };
}
