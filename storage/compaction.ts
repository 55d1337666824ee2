// Idle compaction of the tables the analytics read with FINAL (embedded engine). A
// ReplacingMergeTree keeps every version of a row until a merge; FINAL collapses them at read
// time, and with several overlapping parts that costs a merge of the whole table on every query
// (about 60 ms per 100,000 runs of run_analysis, most of an overview request). Background merges
// leave several parts behind, so once writes have been quiet for a while the compactor merges
// each such table into one part (OPTIMIZE … FINAL); FINAL over a single merged part reads it as
// it is. While ingest keeps writing nothing is compacted (the merge would be stale at once and
// would hold up queries: the embedded engine answers one statement at a time).
import { optimizeFinalSql, partsTable } from './cluster-ddl.js';
import type { Storage } from './gateway.js';

export interface CompactorOptions {
  /** Tables to keep in one part. */
  tables: readonly string[];
  /** Quiet time (no writes through the connection) before compacting. */
  idleMs: number;
  /** How often to look; defaults to a quarter of idleMs, between 1 and 30 s. */
  checkMs?: number;
  onCompacted?: (table: string, ms: number) => void;
  onError?: (err: unknown) => void;
  clock?: () => number;
}

/** After a compaction that took D ms, the next idle one waits at least DUTY_FACTOR × D. */
const DUTY_FACTOR = 20;

export class TableCompactor {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private seenWrites: number;
  private lastChange: number;
  /** The write count right after the last compaction (its own OPTIMIZE included). */
  private compactedAt = -1;
  /** No idle compaction before this time (see DUTY_FACTOR). */
  private notBefore = 0;
  private readonly clock: () => number;

  constructor(
    private readonly storage: Storage,
    private readonly opts: CompactorOptions,
  ) {
    for (const t of opts.tables) if (!/^[a-z_][a-z0-9_]*$/.test(t)) throw new Error(`not a table name: ${t}`);
    this.clock = opts.clock ?? Date.now;
    this.seenWrites = storage.writes ?? 0;
    this.lastChange = this.clock();
  }

  start(): void {
    if (this.opts.idleMs <= 0 || this.storage.writes === undefined) return;
    const every = this.opts.checkMs ?? Math.min(30_000, Math.max(1000, Math.floor(this.opts.idleMs / 4)));
    this.timer = setInterval(() => void this.tick(), every);
    this.timer.unref();
  }

  /** Looks once: compacts when writes happened and have been quiet for idleMs. */
  tick(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.check()
      .catch((err) => this.opts.onError?.(err))
      .finally(() => (this.running = null));
    return this.running;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Merges now, quiet or not (benchmarks: measure the state a quiet server reaches). */
  async compactNow(): Promise<void> {
    await this.running;
    await this.compact();
  }

  private async check(): Promise<void> {
    const writes = this.storage.writes ?? 0;
    const now = this.clock();
    if (writes !== this.seenWrites) {
      this.seenWrites = writes;
      this.lastChange = now;
      return;
    }
    if (writes === this.compactedAt || now - this.lastChange < this.opts.idleMs || now < this.notBefore) return;
    await this.compact();
  }

  private async compact(): Promise<void> {
    const start = this.clock();
    for (const table of this.opts.tables) {
      const [row] = await this.storage.query<{ parts: string }>(
        'SELECT count() AS parts FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active',
        { table: partsTable(this.storage, table) },
      );
      if (Number(row?.parts ?? 0) <= 1) continue;
      const t0 = this.clock();
      // A table name cannot be a query parameter; these come from code, never from input.
      await this.storage.command(optimizeFinalSql(table, this.storage.config.cluster));
      this.opts.onCompacted?.(table, this.clock() - t0);
    }
    this.compactedAt = this.seenWrites = this.storage.writes ?? 0;
    // Bursty ingest (a batch every so often) must not keep the engine merging: at most about 5%
    // of the time goes to compaction.
    this.notBefore = this.clock() + DUTY_FACTOR * (this.clock() - start);
  }
}
