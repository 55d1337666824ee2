// One line about a console result: rows, time, what was read, and whether rows were cut.
import type { SqlStats } from '../../../schemas/api.js';
import { formatBytes } from '../lib/sql-result.js';
import { formatInt } from '../lib/format.js';

export function ResultStats({ stats }: { stats: SqlStats }) {
  return (
    <div className="console-stats" data-testid="sql-stats">
      <span>
        <strong>{formatInt(stats.rows)}</strong> {stats.rows === 1 ? 'row' : 'rows'}
      </span>
      <span>{stats.elapsed_ms < 10 ? stats.elapsed_ms.toFixed(1) : formatInt(stats.elapsed_ms)} ms</span>
      <span>
        read {formatInt(stats.rows_read)} rows, {formatBytes(stats.bytes_read)}
      </span>
      {stats.truncated && (
        <span className="badge badge-timeout" data-testid="sql-truncated" title="The query returned more rows than the console shows; add a LIMIT or aggregate">
          truncated at {formatInt(stats.rows)} rows
        </span>
      )}
    </div>
  );
}
