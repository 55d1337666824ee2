// The one ClickHouse gateway: owns the client (embedded chDB or a ClickHouse server), the
// settings, parameter binding and retries. Every value goes in as a {name:Type} parameter.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { drainPending } from 'chdb';
import { DataFolderInUseError, folderHolder } from './data-folder-owner.js';
import { rowBinaryEncoder, type RowBinaryEncoder } from './row-binary.js';
import { sqlString } from './sql-literal.js';
import { Slots } from './slots.js';

export interface StorageConfig {
  /** ClickHouse server URL; when absent the embedded engine (chDB) is used. */
  url?: string;
  user?: string;
  password?: string;
  database: string;
  /** Data folder of the embedded engine. */
  dataDir: string;
  cluster?: string;
  /** A run with no run_end and no event for this long reads as abandoned (the analysis idle timeout); default 30 min. */
  runIdleTimeoutMs?: number;
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

/**
 * A read stopped because its caller went away (the request's signal aborted): the engine was told
 * to cancel it. `status` 499 (client closed request): nobody is left to answer, and it is not an
 * error of the server.
 */
export class ReadCancelledError extends Error {
  override readonly name = 'ReadCancelledError';
  readonly status = 499;
  constructor(readonly queryId: string) {
    super(`the read ${queryId} was cancelled: its caller went away`);
  }
}

export type QueryParams = Record<string, unknown>;

/** What a read belongs to (a request): cancelled with it, named after it, bounded in time. */
export interface ReadOptions {
  /** Aborts the read: it leaves the queue, or the engine cancels it (KILL QUERY). */
  signal?: AbortSignal;
  /** Prefix of the query id (log_comment on the embedded engine), e.g. the route. */
  label?: string;
  /** The engine stops the read after this long (max_execution_time); absent: no limit. */
  maxSeconds?: number;
}

/** Reads of the storage handed to the embedded engine at the same time, at most (see EngineSlots). */
export const EMBEDDED_ENGINE_READS = 2;
/** SQL console queries in the embedded engine at the same time, at most (besides the above). */
export const EMBEDDED_CONSOLE_READS = 1;

export interface Storage {
  readonly embedded: boolean;
  readonly client: ClickHouseClient;
  readonly config: StorageConfig;
  /**
   * A read. Every read gets a query id (`options.label` and a UUID); with `options.signal`, an
   * abort takes it out of the queue or cancels it in the engine.
   */
  query<T>(sql: string, params?: QueryParams, settings?: ClickHouseSettings, options?: ReadOptions): Promise<T[]>;
  command(sql: string, params?: QueryParams): Promise<void>;
  /**
   * Inserts rows; the token makes a retried insert of the same rows a no-op. With `columns`,
   * the rows travel as compact arrays in that order (faster for the engine to parse); a row may
   * then already be such an array (values in `columns` order) instead of an object. Rows may also
   * come already encoded (EncodedRows, from encodeRows with the same `columns`, or from a
   * rowBinaryEncoder of this storage).
   */
  insert(table: string, rows: readonly object[] | EncodedRows, dedupToken?: string, columns?: readonly string[]): Promise<void>;
  /**
   * An encoder of rows (arrays in `columns` order) into RowBinary for this table, when this
   * storage takes RowBinary inserts (the embedded engine) and every column has a type the encoder
   * writes; else undefined, and rows go as JSON.
   */
  rowBinaryEncoder?(table: string, columns: readonly string[]): Promise<RowBinaryEncoder | undefined>;
  /**
   * Writes (inserts and commands) finished through this connection so far. Readers may cache
   * what they derive from the tables until it changes (embedded: this process is the only
   * writer, so that is exact). Absent on storages that do not count: no caching then.
   */
  readonly writes?: number;
  ping(): Promise<boolean>;
  /** Reads in the engine now (queued ones not counted). */
  readonly readsRunning?: number;
  /** Cancels every read in the engine (shutdown: nothing waits for them). */
  cancelReads?(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The storage as seen by one caller (a request): every read goes with `options` (its signal,
 * label, time limit); everything else is the storage's own. Answers cached per storage
 * (storage/answer-cache.ts) are shared between requests: compute them on sharedStorage(view).
 */
export function readingFor(storage: Storage, options: ReadOptions): Storage {
  const base = sharedStorage(storage);
  const view: Storage & { [SHARED]: Storage } = {
    [SHARED]: base,
    get embedded() {
      return base.embedded;
    },
    get client() {
      return base.client;
    },
    get config() {
      return base.config;
    },
    get writes() {
      return base.writes;
    },
    get readsRunning() {
      return base.readsRunning;
    },
    query: (sql, params, settings, o) => base.query(sql, params, settings, { ...options, ...o }),
    command: (sql, params) => base.command(sql, params),
    insert: (table, rows, token, columns) => base.insert(table, rows, token, columns),
    rowBinaryEncoder: base.rowBinaryEncoder?.bind(base),
    ping: () => base.ping(),
    cancelReads: base.cancelReads?.bind(base),
    close: () => Promise.reject(new StorageError('a request cannot close the storage')),
  };
  return view;
}

const SHARED = Symbol('shared storage');


/** The storage a view of readingFor reads through (the storage itself when not a view). */
export function sharedStorage(storage: Storage): Storage {
  return (storage as { [SHARED]?: Storage })[SHARED] ?? storage;
}

/**
 * At most `limit` reads at a time in the embedded engine. chdb-node runs every native call on a
 * libuv worker thread (4 by default, shared with file I/O and zlib) until the engine is done:
 * unbounded reads could hold all of them, and the writer's inserts (and their payload files)
 * would wait behind dashboard reads. Queued reads whose signal aborts leave the queue.
 */
export class EngineSlots {
  private readonly slots: Slots;
  constructor(readonly limit: number) {
    this.slots = new Slots(limit, Number.POSITIVE_INFINITY);
  }

  get running(): number {
    return this.slots.running;
  }

  async run<T>(fn: () => Promise<T>, signal: AbortSignal | undefined, cancelled: () => Error): Promise<T> {
    if (signal?.aborted) throw cancelled();
    const got = this.slots.acquire();
    if (got !== true) {
      // The queue has no bound, so `got` is a place in it; an abort takes it out.
      const place = got as Promise<void>;
      const onAbort = () => this.slots.cancel(place, cancelled());
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await place;
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    }
    try {
      return await fn();
    } finally {
      this.slots.release(); // the slot passes on to the first waiter as it is
    }
  }
}

/**
 * Waits until no call into the embedded engine is in flight in this process (chdb-node's
 * drainPending), at most `ms`; true when none is left. A process must not exit while one is:
 * chDB's exit then waits for ever (measured: a process.exit() during a running query never
 * returned). A cancelled query (cancelReads) ends within a block; one that ignores the cancel
 * (the engine checks for it between blocks only) keeps this false.
 */
export async function engineSettled(ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([drainPending().then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

const embeddedReadSlots = new EngineSlots(EMBEDDED_ENGINE_READS);
const embeddedConsoleSlots = new EngineSlots(EMBEDDED_CONSOLE_READS);

/**
 * Settings of every query on a cluster (CLICKHOUSE_CLUSTER; none otherwise). An insert into a
 * Distributed table returns once the shards have the rows, not when they are queued on the node
 * that took them: a read right after sees them, and a shard that fails the insert fails it for
 * the writer, which retries with the same token. A subquery or JOIN over a Distributed table
 * inside a query over another runs once and its result goes to every shard (GLOBAL IN/JOIN): the
 * default refuses such queries, and running the subquery per shard would be wrong for one with a
 * LIMIT or over the one-shard tables.
 */
export function clusterSettings(config: StorageConfig): ClickHouseSettings {
  return config.cluster ? { distributed_foreground_insert: 1, distributed_product_mode: 'global' } : {};
}

export async function openStorage(config: StorageConfig): Promise<Storage> {
  let client: ClickHouseClient;
  let raw: RawInserter | undefined;
  if (config.cluster && !config.url) {
    throw new StorageError(`CLICKHOUSE_CLUSTER (${config.cluster}) needs a ClickHouse server (CLICKHOUSE_URL): the embedded engine is one node`);
  }
  if (config.url) {
    client = createClient({
      url: config.url,
      username: config.user,
      password: config.password,
      database: config.database,
      request_timeout: 60_000,
      clickhouse_settings: { date_time_input_format: 'best_effort', ...clusterSettings(config) },
    });
  } else {
    mkdirSync(config.dataDir, { recursive: true });
    try {
      // The embedded engine keeps everything in the `default` database of its data folder.
      const connection = createChdbConnection({ path: config.dataDir });
      client = createClient({ connection: connection as never });
      // Inserts get a connection of their own: an embedded connection runs one statement at a
      // time, so on a shared one every insert would wait behind a long read (an analyzer
      // read-back, a dashboard query), and ingest with it.
      let inserts: ReturnType<typeof createChdbConnection>;
      let control: ClickHouseClient | undefined;
      try {
        inserts = createChdbConnection({ path: config.dataDir });
      } catch (err) {
        await connection.close();
        throw err;
      }
      raw = {
        rawInsert: (params) => inserts.chdb.rawInsert(params),
        // KILL QUERY of a cancelled read (no parameters: a parameterized statement would queue
        // behind the very read it is to stop, see insertRowBinary). A statement of its own
        // connection: it must not wait behind an insert either.
        kill: async (sql) => {
          control ??= createClient({ connection: createChdbConnection({ path: config.dataDir }) as never });
          await control.command({ query: sql });
        },
        command: async (sql) => {
          await inserts.command({ query: sql });
        },
        close: async () => {
          await control?.close();
          await inserts.close();
        },
      };
    } catch (err) {
      const holder = folderHolder(config.dataDir);
      if (holder) throw new DataFolderInUseError(config.dataDir, holder, { cause: err });
      throw new StorageError(
        `cannot open the embedded ClickHouse engine at ${config.dataDir}: ${(err as Error).message}` +
          ' (only one data directory can be open per process)',
        err,
      );
    }
  }
  const storage = new ClickHouseStorage(client, config, raw);
  if (!(await storage.ping())) {
    await raw?.close().catch(() => {});
    await client.close().catch(() => {});
    throw new StorageError(`ClickHouse is not reachable${config.url ? ` at ${config.url}` : ''}`);
  }
  return storage;
}

/** The embedded engine's raw insert (on its own connection): the payload bytes go to the engine as they are. */
interface RawInserter {
  close(): Promise<unknown>;
  /** A statement on the insert connection, without parameters (see insertRowBinary). */
  command(sql: string): Promise<void>;
  /** A KILL QUERY statement (without parameters), on a connection of its own. */
  kill(sql: string): Promise<void>;
  rawInsert(params: {
    table: string;
    columns?: string[];
    values: Buffer;
    format: 'JSONEachRow' | 'JSONCompactEachRow';
    settings?: Record<string, string>;
  }): Promise<unknown>;
}

/**
 * Settings of every insert. Skip indexes (the text indexes of 0016) are built when parts merge,
 * not as rows are inserted: an acknowledged insert does not wait for them (a search reads a part
 * without them whole).
 */
const INSERT_SETTINGS = { materialize_skip_indexes_on_insert: '0' } as const;

class ClickHouseStorage implements Storage {
  readonly embedded: boolean;
  writes = 0;
  /** Where RowBinary payloads wait for the engine to read them (made at the first one). */
  private fileDir: string | undefined;
  /** Embedded: reads in the engine at most at a time (the writer's inserts keep their threads). */
  private readonly slots: EngineSlots | undefined;
  constructor(
    readonly client: ClickHouseClient,
    readonly config: StorageConfig,
    private readonly raw?: RawInserter,
  ) {
    this.embedded = !config.url;
    // One embedded engine per process: its slots are the process's.
    if (this.embedded) this.slots = embeddedReadSlots;
  }

  async query<T>(sql: string, params: QueryParams = {}, settings?: ClickHouseSettings, o: ReadOptions = {}): Promise<T[]> {
    const queryId = `${o.label ?? 'read'}:${randomUUID()}`;
    const { signal } = o;
    const run = async () => {
      const s: ClickHouseSettings = { ...settings };
      if (this.embedded) {
        // Settings on a chDB connection persist (SET): every read sets both, so that none inherits
        // another's name or time limit. The name is how KILL QUERY finds it (chDB makes up its
        // own query ids).
        s.log_comment = queryId;
        s.max_execution_time = o.maxSeconds ?? settings?.max_execution_time ?? 0;
      } else {
        if (o.maxSeconds) s.max_execution_time = o.maxSeconds;
        // A server stops a read whose HTTP request went away (the abort closes it).
        if (signal) s.cancel_http_readonly_queries_on_client_close = 1;
      }
      const onAbort = () => void this.kill(queryId);
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const rs = await this.client.query({ query: sql, query_params: params, format: 'JSONEachRow', clickhouse_settings: s, query_id: queryId, abort_signal: signal });
        return await rs.json<T>();
      } catch (err) {
        if (signal?.aborted) throw new ReadCancelledError(queryId);
        if ((err as { code?: string }).code === '159' && o.maxSeconds) {
          throw new StorageError(`the read took longer than its limit of ${o.maxSeconds} s; narrow the filters or retry later`, err);
        }
        throw err;
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    };
    if (!this.slots) return run();
    return this.slots.run(run, signal, () => new ReadCancelledError(queryId));
  }

  get readsRunning(): number | undefined {
    return this.slots?.running;
  }

  /**
   * Tells the engine to stop a read (its caller went away). The embedded engine finds it by its
   * log_comment; a server by its query id (the closed HTTP request with
   * cancel_http_readonly_queries_on_client_close stops it too; this makes sure). ASYNC: the
   * engine stops it at its next block; SYNC could wait for a long time on chDB.
   */
  private async kill(queryId: string): Promise<void> {
    try {
      if (this.raw) await this.raw.kill(`KILL QUERY WHERE Settings['log_comment'] = ${sqlString(queryId)} AND query_kind = 'Select' ASYNC`);
      else await this.client.command({ query: 'KILL QUERY WHERE query_id = {id:String} ASYNC', query_params: { id: queryId } });
    } catch {
      // Best effort: the read may have ended meanwhile, and a time limit bounds it anyway.
    }
  }

  async cancelReads(): Promise<void> {
    try {
      if (this.raw) await this.raw.kill(`KILL QUERY WHERE query_kind = 'Select' AND Settings['log_comment'] != '' ASYNC`);
    } catch {
      // Best effort (shutdown).
    }
  }

  async command(sql: string, params: QueryParams = {}): Promise<void> {
    try {
      // Embedded: no name and no time limit left over from the last read on this connection.
      await this.client.command({ query: sql, query_params: params, clickhouse_settings: this.embedded ? { log_comment: '', max_execution_time: 0 } : undefined });
    } finally {
      this.writes++;
    }
  }

  async insert(table: string, rows: readonly object[] | EncodedRows, dedupToken?: string, columns?: readonly string[]): Promise<void> {
    const encoded = rows instanceof EncodedRows;
    if ((encoded ? rows.count : rows.length) === 0) return;
    const clickhouse_settings = { ...INSERT_SETTINGS, ...(dedupToken ? { insert_deduplication_token: dedupToken } : {}) };
    const format = columns ? 'JSONCompactEachRow' : 'JSONEachRow';
    try {
      if (encoded && rows.structure !== undefined) {
        await this.insertRowBinary(table, rows, rows.structure, dedupToken, columns);
      } else if (this.raw) {
        // Embedded: one buffer of rows handed to the engine, which parses it off the main thread.
        // The token goes in the INSERT's own SETTINGS clause: a SET would outlive the statement on
        // the shared session and could reach an insert running beside it.
        await this.raw.rawInsert({
          table,
          columns: columns ? [...columns] : undefined,
          values: encoded ? rows.payload : encodeRows(rows, columns),
          format,
          settings: clickhouse_settings,
        });
      } else if (encoded) {
        await insertEncoded(this.client, table, rows, format, columns, clickhouse_settings);
      } else if (columns) {
        const values = inColumnOrder(rows, columns);
        await this.client.insert({ table, values, columns: columns as [string, ...string[]], format: 'JSONCompactEachRow', clickhouse_settings });
      } else {
        await this.client.insert({ table, values: rows as object[], format: 'JSONEachRow', clickhouse_settings });
      }
    } finally {
      this.writes++;
    }
  }

  async rowBinaryEncoder(table: string, columns: readonly string[]): Promise<RowBinaryEncoder | undefined> {
    if (!this.raw) return undefined;
    const types = await this.query<{ name: string; type: string }>(
      'SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = {table:String}',
      { table },
    );
    const byName = new Map(types.map((t) => [t.name, t.type]));
    if (columns.some((c) => !byName.has(c))) return undefined;
    return rowBinaryEncoder(columns.map((name) => ({ name, type: byName.get(name)! })));
  }

  /**
   * RowBinary rows into the embedded engine: chDB's raw insert takes text formats only, so the
   * payload goes to a file that the engine reads with file() in an INSERT ... SELECT (same
   * deduplication token semantics as a plain insert). The statement has no query parameters:
   * chdb-node runs parameterized statements one at a time across all connections, and an insert
   * would wait behind the analyzer's reads. Its literals are ours: the table and columns from
   * the writer's lists, a file name we made, the columns' types from system.columns, a token of
   * the writer's (checked).
   */
  private async insertRowBinary(table: string, rows: EncodedRows, structure: string, dedupToken: string | undefined, columns: readonly string[] | undefined): Promise<void> {
    if (!this.raw) throw new StorageError('RowBinary rows are inserted into the embedded engine only');
    if (!columns) throw new StorageError(`RowBinary rows of ${table} need their columns`);
    if (dedupToken !== undefined && !/^[\w:.-]+$/.test(dedupToken)) throw new StorageError(`unexpected deduplication token ${JSON.stringify(dedupToken)}`);
    this.fileDir ??= mkdtempSync(join(tmpdir(), 'trajscope-inserts-'));
    const path = join(this.fileDir, `${randomUUID()}.bin`);
    const fixed = Object.entries(INSERT_SETTINGS).map(([k, v]) => `${k} = ${v}`);
    const settings = ` SETTINGS ${[...fixed, ...(dedupToken ? [`insert_deduplication_token = ${sqlString(dedupToken)}`] : [])].join(', ')}`;
    const sql =
      `INSERT INTO \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')})${settings} ` +
      `SELECT * FROM file(${sqlString(path)}, 'RowBinary', ${sqlString(structure)})`;
    await writeFile(path, rows.payload);
    try {
      await this.raw.command(sql);
    } finally {
      await rm(path, { force: true });
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
    await this.raw?.close();
    await this.client.close();
    if (this.fileDir) rmSync(this.fileDir, { recursive: true, force: true });
  }
}

/**
 * Rows already encoded: the payload's bytes and how many rows it holds. JSON from encodeRows, or
 * RowBinary from a storage's rowBinaryEncoder, whose column structure it then carries.
 */
export class EncodedRows {
  constructor(
    readonly payload: Buffer,
    readonly count: number,
    /** Set for RowBinary rows: the columns and types they were written for. */
    readonly structure?: string,
  ) {}

  /** Several payloads of the same table, columns and format as one (a copy). */
  static join(parts: readonly EncodedRows[]): EncodedRows {
    if (parts.length === 1) return parts[0];
    const structure = parts[0].structure;
    const buffers: Buffer[] = [];
    let count = 0;
    for (const p of parts) {
      if (p.structure !== structure) throw new StorageError('cannot join rows encoded in different formats');
      // JSON rows are separated by commas; RowBinary rows simply follow each other.
      if (buffers.length && structure === undefined) buffers.push(ROW_SEPARATOR);
      buffers.push(p.payload);
      count += p.count;
    }
    return new EncodedRows(Buffer.concat(buffers), count, structure);
  }

  /** Payloads joined per format (JSON, RowBinary), in the order each format first appears. */
  static joinByFormat(parts: readonly EncodedRows[]): EncodedRows[] {
    const groups = new Map<string | undefined, EncodedRows[]>();
    for (const p of parts) {
      const g = groups.get(p.structure);
      if (g) g.push(p);
      else groups.set(p.structure, [p]);
    }
    return [...groups.values()].map((g) => EncodedRows.join(g));
  }
}

const ROW_SEPARATOR = Buffer.from(',');

/**
 * Encoded rows through the client (a ClickHouse server): an INSERT with the payload as its body.
 * Exported for its test, which runs it on the embedded engine's client connection.
 */
export async function insertEncoded(
  client: ClickHouseClient,
  table: string,
  rows: EncodedRows,
  format: 'JSONCompactEachRow' | 'JSONEachRow',
  columns: readonly string[] | undefined,
  clickhouse_settings: ClickHouseSettings | undefined,
): Promise<void> {
  const columnList = columns ? ` (${columns.map((c) => `\`${c}\``).join(', ')})` : '';
  const result = await client.exec({
    query: `INSERT INTO \`${table}\`${columnList} FORMAT ${format}`,
    values: Readable.from([rows.payload]),
    clickhouse_settings,
  });
  // The response carries nothing: read it to its end so that the connection is free again.
  for await (const _ of result.stream) void _;
}

/**
 * Rows as one JSONCompactEachRow (with columns) or JSONEachRow payload: the rows as one JSON
 * array without its outer brackets, i.e. rows separated by commas, which both formats read
 * (tested against the engine, parallel parsing included). One JSON.stringify of the whole list
 * costs about half of one per row. Rows given as objects with columns are put in column order.
 */
export function encodeRows(rows: readonly object[], columns?: readonly string[]): Buffer {
  const json = Buffer.from(JSON.stringify(columns ? inColumnOrder(rows, columns) : rows), 'utf8');
  return json.subarray(1, json.length - 1);
}

/** Rows as arrays in column order: array rows as they are, object rows picked (absent: null). */
function inColumnOrder(rows: readonly object[], columns: readonly string[]): readonly unknown[] {
  if (rows.every(Array.isArray)) return rows;
  return rows.map((row) => (Array.isArray(row) ? row : columns.map((c) => (row as Record<string, unknown>)[c] ?? null)));
}

export interface ConsoleLimits {
  maxSeconds: number;
  maxRowsRead: number;
  maxResultRows: number;
  maxResultBytes: number;
  maxMemoryBytes: number;
}

/**
 * A read-only client for the SQL console, separate from the one the product writes with.
 * Embedded: its own chDB connection to the same data folder, on which the limits are SET first
 * and readonly=1 last (settings on a chDB connection persist, and after readonly=1 nobody can
 * change them). Server: the same settings sent with every query.
 * `tableFilters` (a map literal for additional_table_filters) confines every read of the named
 * tables (server/sql/project-scope.ts builds it).
 */
export async function openConsoleClient(config: StorageConfig, limits: ConsoleLimits, tableFilters?: string): Promise<ClickHouseClient> {
  const settings: ClickHouseSettings = {
    max_execution_time: limits.maxSeconds,
    max_rows_to_read: String(limits.maxRowsRead),
    read_overflow_mode: 'throw',
    max_result_rows: String(limits.maxResultRows + 1),
    max_result_bytes: String(limits.maxResultBytes),
    result_overflow_mode: 'break',
    max_memory_usage: String(limits.maxMemoryBytes),
    // Defence in depth beside readonly=1 (which still lets INTO OUTFILE and the file() function
    // through; no setting refuses those, server/sql/sql-guard.ts does): no DDL, no functions that
    // read the process's memory and binary, and room for the console's check of a long query
    // (its text travels base64-encoded inside formatQuery(), see server/sql/statement-check.ts).
    allow_ddl: 0,
    allow_introspection_functions: 0,
    max_query_size: String(1024 * 1024),
  };
  if (config.url) {
    return createClient({
      url: config.url,
      username: config.user,
      password: config.password,
      database: config.database,
      request_timeout: (limits.maxSeconds + 5) * 1000,
      clickhouse_settings: { ...settings, ...clusterSettings(config), ...(tableFilters ? { additional_table_filters: tableFilters as never } : {}), readonly: '1' },
    });
  }
  const client = createClient({ connection: createChdbConnection({ path: config.dataDir }) as never });
  limitConsoleReads(client);
  const set = Object.entries(settings)
    .map(([k, v]) => `${k} = ${typeof v === 'string' && !/^\d+$/.test(v) ? `'${v}'` : v}`)
    .join(', ');
  await client.command({ query: `SET ${set}` });
  if (tableFilters) await client.command({ query: `SET additional_table_filters = ${tableFilters}` });
  await client.command({ query: 'SET readonly = 1' });
  return client;
}

/**
 * Console queries on the embedded engine take a slot of their own (EMBEDDED_CONSOLE_READS): each
 * holds a libuv worker thread until the engine is done (up to the console's time limit), and the
 * writer's inserts need one. A query whose abort_signal fires while it waits does not start.
 */
function limitConsoleReads(client: ClickHouseClient): void {
  const query = client.query.bind(client) as (p: { abort_signal?: AbortSignal }) => Promise<unknown>;
  (client as unknown as { query: typeof query }).query = (p) =>
    embeddedConsoleSlots.run(() => query(p), p.abort_signal, () => new StorageError('the console query was cancelled before it started'));
}
