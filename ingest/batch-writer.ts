// Buffers rows per table and writes them to ClickHouse in batches: when the buffer reaches a
// size, when its oldest row reaches an age, or, when a caller waits for its rows to be stored
// and no insert is running, right away (group commit: big batches under load, low latency when
// quiet). Memory is bounded; a failed insert is retried with backoff under the same
// deduplication token, so a retry never stores rows twice and no row is dropped. Rows are
// encoded as they come in: what waits in the buffer is their bytes, not the objects they were
// made of (less memory per row in hand, and nothing long-lived for the garbage collector).
import { randomUUID } from 'node:crypto';
import { EncodedRows, encodeRows, type Storage } from '../storage/gateway.js';
import type { RowBinaryEncoder } from '../storage/row-binary.js';
import { TABLE_COLUMNS, type RowBatch, type TableName } from './event-rows.js';

export interface BatchWriterOptions {
  /** Flush when this many rows are buffered; an insert takes up to this many rows of a table (a larger add() goes whole). */
  maxRows: number;
  /** Flush when the oldest buffered row is this old. */
  maxAgeMs: number;
  /** Refuse new rows (BackpressureError) beyond this many buffered rows... */
  maxBufferedRows: number;
  /** ...or beyond this many bytes of encoded rows. */
  maxBufferedBytes: number;
  /** Backoff of retried inserts: first delay and ceiling. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Called on every failed insert attempt (logging). */
  onInsertError?: (table: string, attempt: number, err: unknown) => void;
  /**
   * RowBinary encoders of tables whose rows are arrays in TABLE_COLUMNS order (the storage's
   * rowBinaryEncoder); other tables, and rows an encoder cannot hold, go as JSON.
   */
  encoders?: Partial<Record<TableName, RowBinaryEncoder>>;
}

export const DEFAULT_WRITER_OPTIONS: BatchWriterOptions = {
  maxRows: 50_000,
  maxAgeMs: 1_000,
  maxBufferedRows: 500_000,
  maxBufferedBytes: 256 * 1024 * 1024,
  retryBaseMs: 100,
  retryMaxMs: 10_000,
};

/** The buffer is full: the caller should retry later (HTTP 503 with Retry-After). */
export class BackpressureError extends Error {
  override readonly name = 'BackpressureError';
  constructor(readonly retryAfterSeconds: number) {
    super('the ingest buffer is full; retry later');
  }
}

export class WriterClosedError extends Error {
  override readonly name = 'WriterClosedError';
  constructor() {
    super('the writer is shut down');
  }
}

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface WriterStats {
  bufferedRows: number;
  bufferedBytes: number;
  flushes: number;
  rowsWritten: number;
  insertErrors: number;
  /** True while an insert keeps failing; cleared by the next success. */
  failing: boolean;
}

/** One add(): its rows encoded per table, and who waits for them to be stored. */
interface Entry {
  tables: [TableName, EncodedRows][];
  rows: number;
  bytes: number;
  at: number;
  waiter?: Waiter;
}

const TABLES: readonly TableName[] = ['runs', 'steps', 'tool_calls', 'scores'];

export class BatchWriter {
  /** Entries not yet being written, oldest first. */
  private queue: Entry[] = [];
  private bufferedRows = 0;
  private bufferedBytes = 0;
  /** Entries in the queue whose caller waits for them to be stored. */
  private waiting = 0;
  private inFlight: Promise<void> | null = null;
  private inFlightRows = 0;
  private inFlightBytes = 0;
  private ageTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly stats: WriterStats = {
    bufferedRows: 0,
    bufferedBytes: 0,
    flushes: 0,
    rowsWritten: 0,
    insertErrors: 0,
    failing: false,
  };

  constructor(
    private readonly storage: Storage,
    private readonly opts: BatchWriterOptions = DEFAULT_WRITER_OPTIONS,
  ) {}

  /**
   * Adds rows. With `wait`, the promise settles once they are stored; without, it settles at
   * once and the rows are written by size or age.
   */
  add(batch: RowBatch, wait = true): Promise<void> {
    if (this.closed) return Promise.reject(new WriterClosedError());
    const rows = countRows(batch);
    if (rows === 0) return Promise.resolve();
    const entry: Entry = { tables: [], rows, bytes: 0, at: Date.now() };
    for (const table of TABLES) {
      const incoming = batch.rows[table];
      if (!incoming.length) continue;
      const e = encodeTableRows(table, incoming, this.opts.encoders?.[table]);
      entry.tables.push([table, e]);
      entry.bytes += e.payload.length;
    }
    this.ensureRoom(rows, entry.bytes);
    this.queue.push(entry);
    this.bufferedBytes += entry.bytes;
    this.bufferedRows += rows;
    let done: Promise<void> = Promise.resolve();
    if (wait) {
      done = new Promise<void>((resolve, reject) => (entry.waiter = { resolve, reject }));
      this.waiting++;
    }
    this.schedule();
    return done;
  }

  /** Writes everything buffered now and resolves when it is stored. */
  async flush(): Promise<void> {
    while (this.inFlight || this.bufferedRows > 0) {
      if (this.inFlight) await this.inFlight.catch(() => {});
      else this.startFlush();
    }
  }

  /** Stops taking rows and writes what is buffered. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.ageTimer) clearTimeout(this.ageTimer);
    await this.flush();
  }

  getStats(): WriterStats {
    return {
      ...this.stats,
      bufferedRows: this.bufferedRows + this.inFlightRows,
      bufferedBytes: this.bufferedBytes + this.inFlightBytes,
    };
  }

  private ensureRoom(rows: number, bytes: number): void {
    const totalRows = this.bufferedRows + this.inFlightRows;
    const totalBytes = this.bufferedBytes + this.inFlightBytes;
    if (totalRows === 0) return; // an empty writer takes any one batch, however large
    if (totalRows + rows > this.opts.maxBufferedRows || totalBytes + bytes > this.opts.maxBufferedBytes) {
      throw new BackpressureError(this.stats.failing ? 5 : 1);
    }
  }

  private schedule(): void {
    if (this.inFlight) return; // the running flush picks the buffer up when it ends
    if (this.waiting > 0 || this.bufferedRows >= this.opts.maxRows) {
      // Let the requests that arrive in the same tick join this batch.
      setImmediate(() => this.startFlush());
      return;
    }
    if (!this.ageTimer && this.queue.length) {
      const delay = Math.max(0, this.queue[0].at + this.opts.maxAgeMs - Date.now());
      this.ageTimer = setTimeout(() => {
        this.ageTimer = null;
        this.startFlush();
      }, delay);
      this.ageTimer.unref();
    }
  }

  /**
   * Writes the oldest entries, up to maxRows rows of any one table (at least one entry): what
   * came in while an insert ran waits for the next one, so that each caller's rows are stored,
   * and its waiter told, one insert after they came rather than behind everything buffered
   * meanwhile.
   */
  private startFlush(): void {
    if (this.inFlight || this.queue.length === 0) return;
    if (this.ageTimer) {
      clearTimeout(this.ageTimer);
      this.ageTimer = null;
    }
    const perTable: Record<TableName, number> = { runs: 0, steps: 0, tool_calls: 0, scores: 0 };
    const fits = (e: Entry) => e.tables.every(([t, r]) => perTable[t] + r.count <= this.opts.maxRows);
    let n = 0;
    let rows = 0;
    let bytes = 0;
    while (n < this.queue.length && (n === 0 || fits(this.queue[n]))) {
      const e = this.queue[n];
      for (const [t, r] of e.tables) perTable[t] += r.count;
      rows += e.rows;
      bytes += e.bytes;
      n++;
    }
    const taken = this.queue.splice(0, n);
    for (const e of taken) if (e.waiter) this.waiting--;
    this.inFlightRows = rows;
    this.inFlightBytes = bytes;
    this.bufferedRows -= rows;
    this.bufferedBytes -= bytes;
    this.inFlight = this.write(taken).then(
      () => {
        this.stats.flushes++;
        this.stats.rowsWritten += rows;
        for (const e of taken) e.waiter?.resolve();
      },
      (err) => {
        for (const e of taken) e.waiter?.reject(err);
      },
    );
    void this.inFlight.finally(() => {
      this.inFlight = null;
      this.inFlightRows = 0;
      this.inFlightBytes = 0;
      if (this.bufferedRows > 0) this.schedule();
    });
  }

  /** Writes the entries' rows, one insert per table, each retried until it is stored. */
  private async write(entries: readonly Entry[]): Promise<void> {
    const byTable: Record<TableName, EncodedRows[]> = { runs: [], steps: [], tool_calls: [], scores: [] };
    for (const e of entries) for (const [table, rows] of e.tables) byTable[table].push(rows);
    const token = randomUUID();
    // One insert per table and format (rows an encoder could not hold went as JSON).
    const insert = async (t: TableName) => {
      for (const [i, rows] of EncodedRows.joinByFormat(byTable[t]).entries()) await this.insertWithRetry(t, rows, `${token}:${t}${i ? `:${i}` : ''}`);
    };
    // Each insert has a fixed cost in the engine, so the event tables are written side by side;
    // runs last: a run row appears once its steps are readable.
    await Promise.all((['steps', 'tool_calls', 'scores'] as TableName[]).map(insert));
    await insert('runs');
  }

  private async insertWithRetry(table: TableName, rows: EncodedRows, token: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.storage.insert(table, rows, token, TABLE_COLUMNS[table]);
        this.stats.failing = false;
        return;
      } catch (err) {
        this.stats.insertErrors++;
        this.stats.failing = true;
        this.opts.onInsertError?.(table, attempt, err);
        if (this.closed && attempt >= 5) throw err;
        const ceiling = Math.min(this.opts.retryMaxMs, this.opts.retryBaseMs * 2 ** (attempt - 1));
        await sleep(ceiling / 2 + Math.random() * (ceiling / 2));
      }
    }
  }
}

/** A table's rows as the writer sends them: RowBinary when an encoder is given and holds them, else JSON. */
export function encodeTableRows(table: TableName, rows: readonly object[], encoder?: RowBinaryEncoder): EncodedRows {
  const binary = encoder?.encode(rows);
  if (binary) return new EncodedRows(binary, rows.length, encoder!.structure);
  return new EncodedRows(encodeRows(rows, TABLE_COLUMNS[table]), rows.length);
}

/** RowBinary encoders of the tables with fixed columns, as far as the storage takes RowBinary. */
export async function rowBinaryEncoders(storage: Storage): Promise<Partial<Record<TableName, RowBinaryEncoder>>> {
  const out: Partial<Record<TableName, RowBinaryEncoder>> = {};
  if (!storage.rowBinaryEncoder) return out;
  for (const [table, columns] of Object.entries(TABLE_COLUMNS) as [TableName, readonly string[]][]) {
    const encoder = await storage.rowBinaryEncoder(table, columns);
    if (encoder) out[table] = encoder;
  }
  return out;
}

function countRows(batch: RowBatch): number {
  let n = 0;
  for (const rows of Object.values(batch.rows)) n += rows.length;
  return n;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
