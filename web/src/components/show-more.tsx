// The first rows of a long list, with a button for the rest: keeps tables short by default.
import { useState, type ReactNode } from 'react';
import { formatInt } from '../lib/format.js';

export function ShowMore<T>({ items, first = 10, children }: { items: readonly T[]; first?: number; children: (shown: readonly T[]) => ReactNode }) {
  const [all, setAll] = useState(false);
  const shown = all ? items : items.slice(0, first);
  return (
    <>
      {children(shown)}
      {items.length > first && (
        <div className="more-row">
          <span className="muted small">
            {formatInt(shown.length)} of {formatInt(items.length)}
          </span>
          <button type="button" className="link-btn" onClick={() => setAll((a) => !a)}>
            {all ? 'Show fewer' : 'Show all'}
          </button>
        </div>
      )}
    </>
  );
}
