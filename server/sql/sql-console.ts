// Runs console queries on the read-only client with limits, caps the rows in code, and writes
// each query to sql_query_log.
import type { ClickHouseClient } from '@clickhouse/client';
import type { Storage } from '../../storage/gateway.js';
import { ApiError } from '../errors.js';
import { checkConsoleSql, SqlRejectedError } from './sql-guard.js';

export interface SqlColumn {
  name: string;
  type: string;
}

export interface SqlResult {
  columns: SqlColumn[];
  rows: unknown[][];
  stats: { elapsed_ms: number; rows: number; rows_read: number; bytes_read: number; truncated: boolean };
}

export interface SchemaTable {
  name: string;
  engine: string;
  description: string;
  columns: { name: string; type: string; description: string }[];
}

interface CompactJson {
  meta: SqlColumn[];
  data: unknown[][];
  rows: number;
  statistics?: { elapsed: number; rows_read: number; bytes_read: number };
}

/** ClickHouse error codes that mean a limit was hit. */
const LIMIT_CODES = new Set(['158', '159', '160', '241', '396', '307']);
/** Tables the console does not show (bookkeeping). */
const HIDDEN_TABLES = new Set(['schema_migrations', 'sql_query_log']);

export class SqlConsole {
  private client: Promise<ClickHouseClient> | null = null;

  /** `openClient` opens the read-only client on first use; close() closes it. */
  constructor(
    private readonly openClient: () => Promise<ClickHouseClient>,
    private readonly storage: Storage,
    private readonly maxRows: number,
    private readonly log: (msg: string, err?: unknown) => void,
  ) {}

  async close(): Promise<void> {
    const c = this.client;
    this.client = null;
    if (c) await (await c.catch(() => null))?.close();
  }

  private getClient(): Promise<ClickHouseClient> {
    this.client ??= this.openClient().catch((err) => {
      this.client = null;
      throw err;
    });
    return this.client;
  }

  async run(sql: string, params: Record<string, unknown>): Promise<SqlResult> {
    const started = performance.now();
    let statement: string;
    try {
      statement = checkConsoleSql(sql);
    } catch (err) {
      if (err instanceof SqlRejectedError) {
        this.record(sql, params, 'rejected', err.message, started, 0);
        throw new ApiError(400, 'sql_rejected', err.message);
      }
      throw err;
    }
    let out: CompactJson;
    try {
      const client = await this.getClient();
      const rs = await client.query({ query: statement, query_params: params, format: 'JSONCompact' });
      out = (await rs.json()) as unknown as CompactJson;
    } catch (err) {
      const e = err as { code?: string; type?: string; message?: string };
      const message = (e.message ?? 'the query failed').trim();
      this.record(statement, params, 'error', message, started, 0);
      if (e.code && LIMIT_CODES.has(e.code)) throw new ApiError(422, 'sql_limit', `${message} (a console limit was reached)`);
      if (e.code === '164') throw new ApiError(403, 'sql_readonly', 'the console is read-only');
      if (e.code) throw new ApiError(400, 'sql_error', message);
      throw err;
    }
    const truncated = out.data.length > this.maxRows;
    const rows = truncated ? out.data.slice(0, this.maxRows) : out.data;
    const stats = out.statistics;
    this.record(statement, params, 'ok', '', started, rows.length, stats);
    return {
      columns: out.meta.map((m) => ({ name: m.name, type: m.type })),
      rows,
      stats: {
        elapsed_ms: Math.round((performance.now() - started) * 10) / 10,
        rows: rows.length,
        rows_read: stats?.rows_read ?? 0,
        bytes_read: stats?.bytes_read ?? 0,
        truncated,
      },
    };
  }

  /** The tables and views a user may query, with column types and descriptions. */
  async schema(): Promise<SchemaTable[]> {
    const [tables, columns] = await Promise.all([
      this.storage.query<{ name: string; engine: string; comment: string }>(
        `SELECT name, engine, comment FROM system.tables
         WHERE database = currentDatabase() AND NOT is_temporary AND NOT startsWith(name, '.inner')
         ORDER BY name`,
      ),
      this.storage.query<{ table: string; name: string; type: string; comment: string }>(
        `SELECT table, name, type, comment FROM system.columns WHERE database = currentDatabase() ORDER BY table, position`,
      ),
    ]);
    return tables
      .filter((t) => !HIDDEN_TABLES.has(t.name))
      .map((t) => ({
        name: t.name,
        engine: t.engine,
        description: t.comment,
        columns: columns.filter((c) => c.table === t.name).map((c) => ({ name: c.name, type: c.type, description: c.comment })),
      }));
  }

  private record(
    sql: string,
    params: Record<string, unknown>,
    status: string,
    error: string,
    started: number,
    resultRows: number,
    stats?: { rows_read: number; bytes_read: number },
  ): void {
    const row = {
      project: '',
      sql,
      params: JSON.stringify(params),
      status,
      error,
      duration_ms: performance.now() - started,
      result_rows: resultRows,
      rows_read: stats?.rows_read ?? 0,
      bytes_read: stats?.bytes_read ?? 0,
    };
    this.storage.insert('sql_query_log', [row]).catch((err) => this.log('cannot write the SQL query log', err));
  }
}
