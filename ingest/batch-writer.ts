// Buffers rows per table and writes them to ClickHouse in batches: when the buffer reaches a
// size, when its oldest row reaches an age, or, when a caller waits for its rows to be stored
// and no insert is running, right away (group commit: big batches under load, low latency when
// quiet). Memory is bounded; a failed insert is retried with backoff under the same
// deduplication token, so a retry never stores rows twice and no row is dropped. Rows are
// encoded as they come in: what waits in the buffer is their bytes, not the objects they were
// made of (less memory per row in hand, and nothing long-lived for the garbage collector).
import { randomUUID } from 'node:crypto';
import { EncodedRows, encodeRows, type Storage } from '../storage/gateway.js';
import { TABLE_COLUMNS, type RowBatch, type TableName } from './event-rows.js';

export interface BatchWriterOptions {
  /** Flush when this many rows are buffered. */
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

/** Encoded rows per table, in the order they came. */
type Pending = Record<TableName, EncodedRows[]>;
const TABLES: readonly TableName[] = ['runs', 'steps', 'tool_calls', 'scores'];

function emptyPending(): Pending {
  return { runs: [], steps: [], tool_calls: [], scores: [] };
}

export class BatchWriter {
  private buffer: Pending = emptyPending();
  private bufferedRows = 0;
  private bufferedBytes = 0;
  private waiters: Waiter[] = [];
  private oldest = 0;
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
    const encoded: [TableName, EncodedRows][] = [];
    let bytes = 0;
    for (const table of TABLES) {
      const incoming = batch.rows[table];
      if (!incoming.length) continue;
      const e = new EncodedRows(encodeRows(incoming, TABLE_COLUMNS[table]), incoming.length);
      encoded.push([table, e]);
      bytes += e.payload.length;
    }
    this.ensureRoom(rows, bytes);
    if (this.bufferedRows === 0) this.oldest = Date.now();
    for (const [table, e] of encoded) this.buffer[table].push(e);
    this.bufferedBytes += bytes;
    this.bufferedRows += rows;
    const done = wait
      ? new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }))
      : Promise.resolve();
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
    if (this.waiters.length > 0 || this.bufferedRows >= this.opts.maxRows) {
      // Let the requests that arrive in the same tick join this batch.
      setImmediate(() => this.startFlush());
      return;
    }
    if (!this.ageTimer) {
      const delay = Math.max(0, this.oldest + this.opts.maxAgeMs - Date.now());
      this.ageTimer = setTimeout(() => {
        this.ageTimer = null;
        this.startFlush();
      }, delay);
      this.ageTimer.unref();
    }
  }

  private startFlush(): void {
    if (this.inFlight || this.bufferedRows === 0) return;
    if (this.ageTimer) {
      clearTimeout(this.ageTimer);
      this.ageTimer = null;
    }
    const batch = this.buffer;
    const waiters = this.waiters;
    this.inFlightRows = this.bufferedRows;
    this.inFlightBytes = this.bufferedBytes;
    this.buffer = emptyPending();
    this.bufferedRows = 0;
    this.bufferedBytes = 0;
    this.waiters = [];
    this.inFlight = this.write(batch).then(
      () => {
        this.stats.flushes++;
        this.stats.rowsWritten += this.inFlightRows;
        for (const w of waiters) w.resolve();
      },
      (err) => {
        for (const w of waiters) w.reject(err);
      },
    );
    void this.inFlight.finally(() => {
      this.inFlight = null;
      this.inFlightRows = 0;
      this.inFlightBytes = 0;
      if (this.bufferedRows > 0) this.schedule();
    });
  }

  /** Writes each table's rows in inserts of about maxRows, each retried until it is stored. */
  private async write(batch: Pending): Promise<void> {
    const token = randomUUID();
    // Each insert has a fixed cost in the engine, so the event tables are written side by side;
    // runs last: a run row appears once its steps are readable.
    await Promise.all((['steps', 'tool_calls', 'scores'] as TableName[]).map((t) => this.writeTable(batch, t, token)));
    await this.writeTable(batch, 'runs', token);
  }

  private async writeTable(batch: Pending, table: TableName, token: string): Promise<void> {
    const chunks = inserts(batch[table], this.opts.maxRows);
    for (let i = 0; i < chunks.length; i++) {
      await this.insertWithRetry(table, EncodedRows.join(chunks[i]), `${token}:${table}:${i}`);
    }
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

function countRows(batch: RowBatch): number {
  let n = 0;
  for (const rows of Object.values(batch.rows)) n += rows.length;
  return n;
}

/** Consecutive payloads grouped into inserts of at most maxRows rows (a larger payload alone). */
function inserts(parts: readonly EncodedRows[], maxRows: number): EncodedRows[][] {
  const out: EncodedRows[][] = [];
  let current: EncodedRows[] = [];
  let rows = 0;
  for (const p of parts) {
    if (current.length && rows + p.count > maxRows) {
      out.push(current);
      current = [];
      rows = 0;
    }
    current.push(p);
    rows += p.count;
  }
  if (current.length) out.push(current);
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
