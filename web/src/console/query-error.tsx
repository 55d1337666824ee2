// A failed console query: what kind of failure, the server's message, and where it points.
import type { ApiError } from '../api/client.js';
import { lineColumn, splitSqlError } from '../lib/sql-result.js';

const TITLES: Record<string, string> = {
  sql_rejected: 'Query refused',
  sql_error: 'Query failed',
  sql_limit: 'A console limit was reached',
  sql_readonly: 'The console is read-only',
  network_error: 'Server unreachable',
};

export function QueryError({ error, sql, offset }: { error: ApiError; sql: string; offset: number | null }) {
  const at = offset === null ? null : lineColumn(sql, offset);
  const { summary, expected } = splitSqlError(error.message);
  return (
    <div className="console-error" role="alert" data-testid="sql-error">
      <div className="console-error-title">
        {TITLES[error.code] ?? 'Query failed'}
        {at && (
          <span className="console-error-pos">
            {' '}
            at line {at.line}, column {at.column}
          </span>
        )}
        <span className="muted small">
          {' '}
          ({error.code}
          {error.status ? `, HTTP ${error.status}` : ''})
        </span>
      </div>
      <pre className="console-error-message">{summary}</pre>
      {expected && (
        <details className="console-error-expected">
          <summary>What ClickHouse expected there</summary>
          <div className="small">{expected}</div>
        </details>
      )}
    </div>
  );
}
