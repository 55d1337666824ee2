// The run analyzer of the ingest path (DESIGN.md "Data flow"): runs touched by stored events are
// marked dirty; a run_end makes its run due after a short delay, other events (a run still
// going, or late events of an ended run) after a debounce. Due runs are read back whole from
// ClickHouse in batches, analysed with analytics/ (analyze-run.ts) and their verdicts written
// to run_analysis, so they survive restarts. A periodic sweep catches runs that went idle
// (abandoned) and runs stored while no analyzer ran (a crash, another process).
import { setImmediate } from 'node:timers/promises';
import type { FailureConfig } from '../../analytics/failure-modes/index.js';
import type { LoopThresholds } from '../../analytics/loops/index.js';
import type { TrajEvent } from '../../schemas/normalize-event.js';
import type { Storage } from '../../storage/gateway.js';
import type { IngestObserver } from '../event-ingestor.js';
import { analyzeRun, type RunRows } from './analyze-run.js';
import { planReadBatches } from './read-batches.js';
import { countRunRows, readRuns } from './read-runs.js';

export interface RunAnalyzerOptions {
  delayMs: number;
  debounceMs: number;
  sweepMs: number;
  idleTimeoutMs: number;
  loops?: Partial<LoopThresholds>;
  failure?: Partial<FailureConfig>;
  /** Runs read back per batch of queries at most (each batch scans the step index once). */
  batchRuns?: number;
  /** Step and tool-call rows read back per batch at most, as far as a run allows (memory). */
  batchRows?: number;
  /** Writes what the ingest path has buffered (before reading runs that may still be in it). */
  beforeRead?: () => Promise<void>;
  onError?: (err: unknown) => void;
  clock?: () => number;
}

/** A run that a batch of events touched; `ended` when one of them was its run_end. */
export interface TouchedRun {
  project: string;
  run_id: string;
  ended: boolean;
}

/** The runs of a list of events, one entry per stretch of consecutive events of a run. */
export function touchedRuns(events: readonly TrajEvent[]): TouchedRun[] {
  const out: TouchedRun[] = [];
  let last: TouchedRun | undefined;
  for (const e of events) {
    if (!last || last.run_id !== e.run_id || last.project !== e.project) {
      last = { project: e.project, run_id: e.run_id, ended: false };
      out.push(last);
    }
    if (e.type === 'run_end') last.ended = true;
  }
  return out;
}

interface Dirty {
  project: string;
  run_id: string;
  due: number;
}

const SEP = '\u0000';
/** Re-analyses of a run still going back off up to debounce × 2^5. */
const MAX_DOUBLINGS = 5;
/** Runs whose re-analysis count is kept. */
const MAX_GOING_TRACKED = 100_000;
/** Runs analysed between two turns of the event loop. */
const YIELD_EVERY_RUNS = 50;

export class RunAnalyzer {
  private readonly dirty = new Map<string, Dirty>();
  /** Analyses made of runs still going, per run (bounded; oldest forgotten first). */
  private readonly goingAnalyses = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private firstSweep: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  /** No more sweeps (closing). */
  private stopped = false;
  private needsFlush = false;
  private readonly clock: () => number;
  /** Analyses written since start (tests, stats). */
  analysed = 0;
  /** Passes that failed since start (a read or a write of the storage). */
  failures = 0;

  constructor(
    private readonly storage: Storage,
    private readonly opts: RunAnalyzerOptions,
  ) {
    this.clock = opts.clock ?? Date.now;
  }

  /** Starts the periodic sweep (idle runs, runs never analysed); the first one runs soon. */
  start(): void {
    const tick = () => {
      this.sweepTimer = setTimeout(() => {
        this.sweep().catch((err) => this.opts.onError?.(err)).finally(() => !this.stopped && tick());
      }, this.opts.sweepMs);
      this.sweepTimer.unref();
    };
    this.firstSweep = setTimeout(() => void this.sweep().catch((err) => this.opts.onError?.(err)), 1000);
    this.firstSweep.unref();
    tick();
  }

  /**
   * The ingest observer: the runs an ingested batch touched are noted at once (only their keys
   * are kept) and marked dirty once the batch is stored; when the caller does not wait for
   * storage, right away, and the writer is flushed before they are read.
   */
  readonly observer: IngestObserver = (events, _parts, stored) => {
    const runs = touchedRuns(events);
    if (!stored) this.notify(runs, false);
    else stored.then(() => this.notify(runs), () => {}); // not stored: the caller is told, nothing to analyse
  };

  /** Events of these runs were stored (or, with stored=false, handed to the writer). */
  notify(runs: readonly TouchedRun[], stored = true): void {
    if (this.closed) return;
    if (!stored) this.needsFlush = true;
    const now = this.clock();
    for (const r of runs) {
      const key = r.project + SEP + r.run_id;
      let entry = this.dirty.get(key);
      if (!entry) {
        entry = { project: r.project, run_id: r.run_id, due: Infinity };
        this.dirty.set(key, entry);
      }
      const due = now + (r.ended ? this.opts.delayMs : this.goingDelay(key));
      if (due < entry.due) entry.due = due;
    }
    this.schedule();
  }

  /**
   * Wait before analysing a run that is still going: the debounce, doubled for every analysis
   * this process already made of it while it was going (up to 32 times). A run streamed over
   * minutes is read back whole at each analysis; without the doubling that would be every
   * debounce, a cost that grows with the square of its length. Its run_end is analysed after
   * the short delay as before; dead loops are caught live meanwhile (live-loops.ts).
   */
  private goingDelay(key: string): number {
    return this.opts.debounceMs * 2 ** Math.min(this.goingAnalyses.get(key) ?? 0, MAX_DOUBLINGS);
  }

  /** Counts an analysis of a run still going (or forgets a run that ended). */
  private countAnalysis(key: string, going: boolean): void {
    if (!going) {
      this.goingAnalyses.delete(key);
      return;
    }
    const n = this.goingAnalyses.get(key) ?? 0;
    this.goingAnalyses.delete(key); // re-inserted last: the map is in order of last analysis
    this.goingAnalyses.set(key, n + 1);
    if (this.goingAnalyses.size > MAX_GOING_TRACKED) this.goingAnalyses.delete(this.goingAnalyses.keys().next().value as string);
  }

  /** Marks runs for analysis now (sweep, tests). */
  markDue(keys: ReadonlyArray<{ project: string; run_id: string }>): void {
    const now = this.clock();
    for (const k of keys) this.dirty.set(k.project + SEP + k.run_id, { project: k.project, run_id: k.run_id, due: now });
    this.schedule();
  }

  /** Runs waiting for analysis. */
  get pending(): number {
    return this.dirty.size;
  }

  /** When a run waiting for analysis is due (clock time), else undefined (tests, stats). */
  dueAt(project: string, runId: string): number | undefined {
    return this.dirty.get(project + SEP + runId)?.due;
  }

  /**
   * Analyses every dirty run now, due or not, and resolves when their verdicts are stored, or
   * after a pass that failed (the runs it could not analyse stay dirty, due after the debounce).
   */
  async drain(): Promise<void> {
    while (this.running || this.dirty.size > 0) {
      if (this.running) {
        await this.running;
        continue;
      }
      for (const d of this.dirty.values()) d.due = 0;
      const failed = this.failures;
      await this.runDue();
      if (this.failures > failed) return;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    if (this.firstSweep) clearTimeout(this.firstSweep);
    this.stopped = true;
    await this.drain().catch((err) => this.opts.onError?.(err));
    this.closed = true;
  }

  /** Finds runs to (re)analyse: idle runs without run_end, and runs stored since their analysis. */
  async sweep(): Promise<number> {
    if (this.stopped) return 0;
    const idleBefore = this.clock() - this.opts.idleTimeoutMs;
    const rows = await this.storage.query<{ project: string; run_id: string }>(
      `SELECT project, run_id FROM
       (
         SELECT project, run_id, max(ingested_at) AS wm FROM runs GROUP BY project, run_id
       ) AS w
       LEFT JOIN
       (
         SELECT project, run_id, source_ingested_at, status, failure_mode, last_event_at
         FROM run_analysis FINAL
       ) AS a ON a.project = w.project AND a.run_id = w.run_id
       WHERE a.source_ingested_at != w.wm
          OR (a.status = 'running' AND a.failure_mode = '' AND a.last_event_at < fromUnixTimestamp64Milli({idle:Int64}))
       LIMIT 100000`,
      { idle: idleBefore },
    );
    const fresh = rows.filter((r) => !this.dirty.has(r.project + SEP + r.run_id));
    if (fresh.length) this.markDue(fresh);
    return fresh.length;
  }

  private schedule(): void {
    if (this.running || this.closed || this.dirty.size === 0) return;
    let next = Infinity;
    for (const d of this.dirty.values()) if (d.due < next) next = d.due;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runDue();
    }, Math.max(0, next - this.clock()));
    this.timer.unref();
  }

  private runDue(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.analyseDue()
      .catch((err) => {
        this.failures++;
        this.opts.onError?.(err);
      })
      .finally(() => {
        this.running = null;
        this.schedule();
      });
    return this.running;
  }

  private async analyseDue(): Promise<void> {
    const now = this.clock();
    const due: Dirty[] = [];
    for (const [key, d] of this.dirty) {
      if (d.due > now) continue;
      due.push(d);
      this.dirty.delete(key);
    }
    if (due.length === 0) return;
    if (this.needsFlush) {
      this.needsFlush = false;
      await this.opts.beforeRead?.();
    }
    const byProject = new Map<string, string[]>();
    for (const d of due) {
      const list = byProject.get(d.project);
      if (list) list.push(d.run_id);
      else byProject.set(d.project, [d.run_id]);
    }
    const projects = [...byProject];
    for (let p = 0; p < projects.length; p++) {
      const [project, ids] = projects[p];
      ids.sort();
      let done = 0;
      try {
        // One run is read alone whatever its size: counting its rows would be a query for nothing.
        const sizes = ids.length > 1 ? await countRunRows(this.storage, project, ids) : new Map<string, number>();
        for (const batch of planReadBatches(ids, sizes, this.opts.batchRuns ?? 2000, this.opts.batchRows ?? 100_000)) {
          await this.analyseBatch(project, batch);
          done += batch.length;
        }
      } catch (err) {
        // Put back what this pass did not analyse: a later pass (or the sweep) retries.
        this.putBack(project, ids.slice(done));
        for (const [later, laterIds] of projects.slice(p + 1)) this.putBack(later, laterIds);
        throw err;
      }
    }
  }

  /** Marks runs dirty again, due after the debounce (unless already dirty). */
  private putBack(project: string, runIds: readonly string[]): void {
    for (const run_id of runIds) {
      const key = project + SEP + run_id;
      if (!this.dirty.has(key)) this.dirty.set(key, { project, run_id, due: this.clock() + this.opts.debounceMs });
    }
  }

  private async analyseBatch(project: string, runIds: string[]): Promise<void> {
    const runs: RunRows[] = await readRuns(this.storage, project, runIds);
    if (runs.length === 0) return;
    const now = this.clock();
    const options = { now, loops: this.opts.loops, failure: { ...this.opts.failure, idleTimeoutMs: this.opts.idleTimeoutMs } };
    const rows: ReturnType<typeof analyzeRun>[] = [];
    for (let i = 0; i < runs.length; i++) {
      // A batch of long runs takes a while to analyse: let ingest (HTTP, Kafka) go on in between.
      if (i > 0 && i % YIELD_EVERY_RUNS === 0) await setImmediate();
      const row = analyzeRun(runs[i], options);
      rows.push(row);
      this.countAnalysis(project + SEP + String(row.run_id), row.ended_at === null || row.ended_at === undefined);
    }
    await this.storage.insert('run_analysis', rows);
    this.analysed += rows.length;
  }
}
