// The console's results: typed column headers, numbers right-aligned, NULL marked, long text
// cut (the full value in the tooltip); rows shown in pages so large results stay responsive.
import { useState } from 'react';
import type { SqlResult } from '../../../schemas/api.js';
import { cellText, isNumericType } from '../lib/sql-result.js';

const PAGE = 200;

export function ResultTable({ result }: { result: SqlResult }) {
  const [shown, setShown] = useState(PAGE);
  const numeric = result.columns.map((c) => isNumericType(c.type));
  const rows = result.rows.slice(0, shown);
  if (result.columns.length === 0) return <div className="console-empty muted">The statement returned no columns.</div>;
  return (
    <div className="console-table-wrap">
      <table className="console-table" data-testid="sql-result-table">
        <thead>
          <tr>
            <th className="rownum" aria-label="row number" />
            {result.columns.map((c, i) => (
              <th key={i} className={numeric[i] ? 'num' : undefined} title={`${c.name} ${c.type}`}>
                <div className="col-name">{c.name}</div>
                <div className="col-type">{c.type}</div>
              </th>
            ))}
            <th className="filler" aria-hidden="true" />
          </tr>
        </thead>
        <tbody>
          {rows.map((r, ri) => (
            <tr key={ri}>
              <td className="rownum">{ri + 1}</td>
              {result.columns.map((_, ci) => {
                const v = r[ci];
                const text = cellText(v);
                return (
                  <td key={ci} className={[numeric[ci] ? 'num' : '', v === null ? 'null' : ''].join(' ').trim() || undefined} title={text.length > 60 ? text : undefined}>
                    {text}
                  </td>
                );
              })}
              <td className="filler" aria-hidden="true" />
            </tr>
          ))}
        </tbody>
      </table>
      {result.rows.length === 0 && <div className="console-empty muted">No rows.</div>}
      {result.rows.length > shown && (
        <div className="table-foot">
          <span className="muted small">
            Showing {shown.toLocaleString('en-US')} of {result.rows.length.toLocaleString('en-US')} rows
          </span>
          <button type="button" className="btn" onClick={() => setShown((n) => n + 1000)}>
            Show more rows
          </button>
        </div>
      )}
    </div>
  );
}
