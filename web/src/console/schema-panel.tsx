// The schema browser: tables and their columns with types and descriptions. Clicking a name
// inserts it into the editor at the cursor.
import { useState } from 'react';
import type { SqlSchemaTable } from '../../../schemas/api.js';
import { quoteIdentifier } from '../lib/sql-schema.js';

interface Props {
  tables: readonly SqlSchemaTable[];
  onInsert: (text: string) => void;
}

export function SchemaPanel({ tables, onInsert }: Props) {
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  const [filter, setFilter] = useState('');
  const f = filter.trim().toLowerCase();
  const toggle = (name: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (next.has(name)) next.delete(name);
      else next.add(name);
      return next;
    });
  const visible = tables
    .map((t) => ({ t, cols: f && !t.name.toLowerCase().includes(f) ? t.columns.filter((c) => c.name.toLowerCase().includes(f)) : t.columns }))
    .filter(({ t, cols }) => !f || t.name.toLowerCase().includes(f) || cols.length > 0);

  return (
    <section className="card console-side-card" aria-label="Schema">
      <div className="console-side-head">
        <h3>Schema</h3>
        <span className="muted small">click a name to insert it</span>
      </div>
      <input className="console-filter" type="search" placeholder="Find a table or column" aria-label="Find a table or column" value={filter} onChange={(e) => setFilter(e.target.value)} />
      <ul className="schema-tree" data-testid="schema-tree">
        {visible.map(({ t, cols }) => {
          const expanded = open.has(t.name) || (f !== '' && cols.length < t.columns.length);
          return (
            <li key={t.name} className="schema-table">
              <div className="schema-table-row">
                <button type="button" className="schema-caret" aria-expanded={expanded} aria-label={`${expanded ? 'Hide' : 'Show'} columns of ${t.name}`} onClick={() => toggle(t.name)}>
                  {expanded ? '▾' : '▸'}
                </button>
                <button type="button" className="schema-name" title={t.description || t.name} onClick={() => onInsert(quoteIdentifier(t.name))}>
                  {t.name}
                </button>
                <span className="schema-type">{t.columns.length} cols</span>
              </div>
              {expanded && t.description && <div className="schema-desc schema-table-desc">{t.description}</div>}
              {expanded && (
                <ul className="schema-columns">
                  {cols.map((c) => (
                    <li key={c.name}>
                      <div className="schema-col-row">
                        <button type="button" className="schema-name schema-col" onClick={() => onInsert(quoteIdentifier(c.name))}>
                          {c.name}
                        </button>
                        <span className="schema-type" title={c.type}>
                          {c.type}
                        </span>
                      </div>
                      {c.description && <div className="schema-desc">{c.description}</div>}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
        {visible.length === 0 && <li className="muted small">No table or column matches.</li>}
      </ul>
    </section>
  );
}
