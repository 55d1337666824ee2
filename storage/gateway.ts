// The one ClickHouse gateway: owns the client (embedded chDB or a ClickHouse server), the
// settings, parameter binding and retries. Every value goes in as a {name:Type} parameter.
import { mkdirSync } from 'node:fs';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';

export interface StorageConfig {
  /** ClickHouse server URL; when absent the embedded engine (chDB) is used. */
  url?: string;
  user?: string;
  password?: string;
  database: string;
  /** Data folder of the embedded engine. */
  dataDir: string;
  cluster?: string;
}

export class StorageError extends Error {
  override readonly name = 'StorageError';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

export type QueryParams = Record<string, unknown>;

export interface Storage {
  readonly embedded: boolean;
  readonly client: ClickHouseClient;
  readonly config: StorageConfig;
  query<T>(sql: string, params?: QueryParams, settings?: ClickHouseSettings): Promise<T[]>;
  command(sql: string, params?: QueryParams): Promise<void>;
  /**
   * Inserts rows; the token makes a retried insert of the same rows a no-op. With `columns`,
   * the rows travel as compact arrays in that order (faster for the engine to parse).
   */
  insert(table: string, rows: readonly object[], dedupToken?: string, columns?: readonly string[]): Promise<void>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export async function openStorage(config: StorageConfig): Promise<Storage> {
  let client: ClickHouseClient;
  if (config.url) {
    client = createClient({
      url: config.url,
      username: config.user,
      password: config.password,
      database: config.database,
      request_timeout: 60_000,
      clickhouse_settings: { date_time_input_format: 'best_effort' },
    });
  } else {
    mkdirSync(config.dataDir, { recursive: true });
    try {
      // The embedded engine keeps everything in the `default` database of its data folder.
      client = createClient({
        connection: createChdbConnection({ path: config.dataDir }) as never,
      });
    } catch (err) {
      throw new StorageError(
        `cannot open the embedded ClickHouse engine at ${config.dataDir}: ${(err as Error).message}` +
          ' (only one data directory can be open per process)',
        err,
      );
    }
  }
  const storage = new ClickHouseStorage(client, config);
  if (!(await storage.ping())) {
    await client.close().catch(() => {});
    throw new StorageError(`ClickHouse is not reachable${config.url ? ` at ${config.url}` : ''}`);
  }
  return storage;
}

class ClickHouseStorage implements Storage {
  readonly embedded: boolean;
  constructor(
    readonly client: ClickHouseClient,
    readonly config: StorageConfig,
  ) {
    this.embedded = !config.url;
  }

  async query<T>(sql: string, params: QueryParams = {}, settings?: ClickHouseSettings): Promise<T[]> {
    const rs = await this.client.query({
      query: sql,
      query_params: params,
      format: 'JSONEachRow',
      clickhouse_settings: settings,
    });
    return rs.json<T>();
  }

  async command(sql: string, params: QueryParams = {}): Promise<void> {
    await this.client.command({ query: sql, query_params: params });
  }

  async insert(table: string, rows: readonly object[], dedupToken?: string, columns?: readonly string[]): Promise<void> {
    if (rows.length === 0) return;
    const clickhouse_settings = dedupToken ? { insert_deduplication_token: dedupToken } : undefined;
    if (columns) {
      const values = rows.map((r) => columns.map((c) => (r as Record<string, unknown>)[c] ?? null));
      await this.client.insert({ table, values, columns: columns as [string, ...string[]], format: 'JSONCompactEachRow', clickhouse_settings });
    } else {
      await this.client.insert({ table, values: rows as object[], format: 'JSONEachRow', clickhouse_settings });
    }
  }

  async ping(): Promise<boolean> {
    try {
      const r = await this.client.ping();
      return r.success;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
