// The run analyzer of the ingest path (DESIGN.md "Data flow", docs/analysis.md): runs touched by
// stored events are marked dirty; a run_end makes its run due after a short delay, other events
// (a run still going, or late events of an ended run) after a debounce. Due runs are read back
// whole from ClickHouse in batches of consecutive runs (at most `batchRuns` runs and, as far as
// a run allows, `batchRows` rows: every query of a batch names that batch alone), analysed with
// analytics/ (analyze-run.ts) and their verdicts written to run_analysis, so they survive
// restarts.
//
// Runs stored while no analyzer ran (a crash, a shutdown that left work, another process) are
// found by a scan of the (project, run_id) key space in bounded key ranges, each checked by one
// query (storage/queries/analysis-queries.ts): at start, and again every `rescanMs`. The scan
// waits while a batch's worth of runs waits for analysis, so the backlog it finds is taken in
// key order, range by range, however large. Runs still going are watched in memory and analysed
// again once idle (abandoned). close() takes no new work and waits for the batch in flight for
// `closeWaitMs` at most: what is left is found again by the next start's scan.
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { FailureConfig } from '../../analytics/failure-modes/index.js';
import type { LoopThresholds } from '../../analytics/loops/index.js';
import type { HackingConfig } from '../../analytics/hacking-evidence.js';
import type { AnalysisStatus } from '../../schemas/ingest-status.js';
import type { TrajEvent } from '../../schemas/normalize-event.js';
import type { Storage } from '../../storage/gateway.js';
import { countRunRows, findRunsToCheck, insertRunAnalysis, keyRangeEnd, nextProject, storedRunRows, type RunToCheck } from '../../storage/queries/analysis-queries.js';
import type { IngestObserver } from '../event-ingestor.js';
import { analyzeRun, type RunRows } from '../../analytics/analyze-run.js';
import { planReadBatches } from './read-batches.js';
import { readRuns } from '../../storage/queries/analysis-read-queries.js';
import { SecondSeries } from './second-series.js';

export interface RunAnalyzerOptions {
  delayMs: number;
  debounceMs: number;
  /** How often runs watched while going are checked for idleness (and a due rescan started). */
  sweepMs: number;
  idleTimeoutMs: number;
  loops?: Partial<LoopThresholds>;
  failure?: Partial<FailureConfig>;
  hacking?: Partial<HackingConfig>;
  /** Runs read back per batch of queries at most (each batch scans the step index once). */
  batchRuns?: number;
  /** Step and tool-call rows read back per batch at most, as far as a run allows (memory). */
  batchRows?: number;
  /** Rows of `runs` per key range that the scan for missing analyses checks in one query. */
  scanRows?: number;
  /** A new scan of every stored run this long after the last one finished (0: the one at start only). */
  rescanMs?: number;
  /**
   * Whether this process runs the deployment's periodic rescan (storage shared by several
   * processes: only the elected leader does). Absent: always. Idle runs this process watched
   * are checked in any case (they are its own).
   */
  leadsRescan?: () => boolean;
  /** close(): how long the batch in flight may still take before close returns anyway. */
  closeWaitMs?: number;
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
  /** The key range of the scan that found it (its batches stay within that range), if any. */
  range?: number;
}

interface RunKey {
  project: string;
  run_id: string;
}

/** Where the scan for missing analyses stands: the project in progress (null: find the next) and the last key checked. */
interface ScanPosition {
  project: string | null;
  afterProject: string;
  after: string;
}

interface ScanProgress {
  startedAt: number;
  finishedAt: number | null;
  ranges: number;
  found: number;
  /** Rows of `runs` when the scan started, and about how many of them it has checked. */
  rowsTotal: number;
  rowsChecked: number;
}

const SEP = '\u0000';
/** Re-analyses of a run still going back off up to debounce × 2^5. */
const MAX_GOING_TRACKED = 100_000;
const MAX_DOUBLINGS = 5;
/** Runs analysed between two turns of the event loop. */
const YIELD_EVERY_RUNS = 50;
/** Analysis lags when a run waits this long past its due time. */
const LAGGING_AFTER_MS = 30_000;

export class RunAnalyzer {
  private readonly dirty = new Map<string, Dirty>();
  /** Analyses made of runs still going, per run (bounded; oldest forgotten first). */
  private readonly goingAnalyses = new Map<string, number>();
  /** Runs still going without a verdict: when each turns idle (its last event + the idle timeout). Bounded. */
  private readonly idleAt = new Map<string, RunKey & { at: number }>();
  private timer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private firstSweep: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Runs of the pass in progress not analysed yet, and those of its batch in flight. */
  private inPass = 0;
  private inFlight = 0;
  /** The pass in progress: when the most overdue run it took was due. */
  private passOldestDue: number | null = null;
  /** When the next dirty run is due (as of the last schedule; Infinity: none). */
  private nextDue = Infinity;
  /** No more notifications, and results still in flight are not written (closed). */
  private closed = false;
  /** No more passes, sweeps or scans (closing). */
  private stopped = false;
  private needsFlush = false;
  private scanning: Promise<number> | null = null;
  /** Where an interrupted scan goes on from (a read failed). */
  private resume: ScanPosition | null = null;
  private scanProgress: ScanProgress | null = null;
  /** Key ranges the scans checked so far (tags of the runs they found). */
  private ranges = 0;
  private readonly clock: () => number;
  private readonly perSecond: SecondSeries;
  private readonly backlogSeries: SecondSeries;
  private lastError: { message: string; at: string } | null = null;
  /** Analyses written since start (tests, stats). */
  analysed = 0;
  /** Passes (and scan steps) that failed since start (a read or a write of the storage). */
  failures = 0;

  constructor(
    private readonly storage: Storage,
    private readonly opts: RunAnalyzerOptions,
  ) {
    this.clock = opts.clock ?? Date.now;
    // Rates are per wall-clock second whatever clock the verdicts use (tests pin it).
    this.perSecond = new SecondSeries('count');
    this.backlogSeries = new SecondSeries('gauge');
  }

  private get batchRuns(): number {
    return this.opts.batchRuns ?? 2000;
  }

  /** Scans for runs stored without analysis now, then checks idle runs every `sweepMs`. */
  start(): void {
    const tick = () => {
      this.sweepTimer = setTimeout(() => {
        this.tick();
        if (!this.stopped) tick();
      }, this.opts.sweepMs);
      this.sweepTimer.unref();
    };
    this.firstSweep = setTimeout(() => void this.sweep(), 0);
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

  /** Marks runs for analysis, due now or at `due` if earlier (sweep, scan, tests). */
  markDue(keys: ReadonlyArray<RunKey & { due?: number }>, range?: number): void {
    if (this.closed) return;
    const now = this.clock();
    for (const k of keys) {
      const key = k.project + SEP + k.run_id;
      const due = Math.min(now, k.due ?? now);
      const entry = this.dirty.get(key);
      if (entry) entry.due = Math.min(entry.due, due);
      else this.dirty.set(key, { project: k.project, run_id: k.run_id, due, range });
    }
    this.schedule();
  }

  /** Runs waiting for analysis (due or not yet), those of the pass in progress included. */
  get pending(): number {
    return this.dirty.size + this.inPass;
  }

  /** When a run waiting for analysis is due (clock time), else undefined (tests, stats). */
  dueAt(project: string, runId: string): number | undefined {
    return this.dirty.get(project + SEP + runId)?.due;
  }

  /**
   * Analyses every dirty run now, due or not, and the runs a scan in progress still finds;
   * resolves when their verdicts are stored, or after a pass that failed (the runs it could not
   * analyse stay dirty, due after the debounce).
   */
  async drain(): Promise<void> {
    for (;;) {
      if (this.scanning) {
        await this.scanning;
        continue;
      }
      if (this.running) {
        await this.running;
        continue;
      }
      if (this.dirty.size === 0 || this.stopped) return;
      for (const d of this.dirty.values()) d.due = 0;
      const failed = this.failures;
      await this.runDue();
      if (this.failures > failed) return;
    }
  }

  /**
   * Stops taking work and returns once the batch in flight is done, or after `closeWaitMs`
   * (its verdicts are then not written). Runs still waiting are left: the next start's scan
   * finds them (stored since their analysis, or never analysed).
   */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    if (this.firstSweep) clearTimeout(this.firstSweep);
    this.stopped = true;
    const inFlight = this.running;
    if (inFlight) {
      const wait = new AbortController();
      await Promise.race([inFlight, sleep(this.opts.closeWaitMs ?? 2000, undefined, { signal: wait.signal, ref: false }).catch(() => {})]);
      wait.abort();
    }
    this.closed = true;
  }

  /**
   * Checks every stored run once for a missing or outdated analysis, in key ranges of
   * `scanRows` rows of `runs` (one bounded query each), and marks what it finds due; it takes
   * the next range only while less than a batch of runs waits, so the runs it finds are analysed
   * range by range as it goes. Resolves with the number of runs found once every range was
   * checked (or the scan stopped: closing, or a read failed, and then the next sweep goes on from
   * where it stopped). Also marks watched runs that turned idle. One scan at a time.
   */
  sweep(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    this.checkIdle();
    this.scanning ??= this.scan().finally(() => (this.scanning = null));
    return this.scanning;
  }

  /**
   * The analyzer's state for /api/v1/ingest/status (see AnalysisStatus). The backlog is the runs
   * due (those of the pass in progress included), not those waiting for their debounce (runs
   * still going): many runs going at once are no lag. Sampled here, for its last minute.
   */
  status(): AnalysisStatus {
    const now = this.clock();
    let due = 0;
    for (const d of this.dirty.values()) if (d.due <= now) due++;
    const backlog = due + this.inPass;
    this.backlogSeries.set(backlog);
    const series = this.backlogSeries.snapshot();
    const analysedPerSecond = this.perSecond.snapshot();
    const delay = Math.max(0, this.passOldestDue !== null ? now - this.passOldestDue : this.nextDue < now ? now - this.nextDue : 0);
    const growing = backlog > 0 && backlog > series[series.length - 11];
    const p = this.scanProgress;
    const scanFound = this.scanning !== null && (p?.found ?? 0) > 0;
    return {
      backlog,
      scheduled: this.dirty.size - due,
      in_flight: this.inFlight,
      backlog_per_second: series,
      runs_per_second: this.perSecond.sumLast(10) / 10,
      analysed_per_second: analysedPerSecond,
      analysed_total: this.analysed,
      delay_ms: delay,
      growing,
      lagging: backlog > 0 && (delay > LAGGING_AFTER_MS || (growing && backlog > this.batchRuns) || scanFound),
      scan: {
        running: this.scanning !== null,
        started_at: p ? new Date(p.startedAt).toISOString() : null,
        finished_at: p?.finishedAt ? new Date(p.finishedAt).toISOString() : null,
        ranges: p?.ranges ?? 0,
        found: p?.found ?? 0,
        checked: p && p.rowsTotal > 0 ? p.rowsChecked / p.rowsTotal : p?.finishedAt ? 1 : 0,
      },
      failures: this.failures,
      last_error: this.lastError,
    };
  }

  /** The periodic check: idle runs; a scan when one stopped early or the rescan interval passed. */
  private tick(): void {
    if (this.stopped) return;
    this.checkIdle();
    if (this.scanning) return;
    const rescan = this.opts.rescanMs ?? 0;
    const last = this.scanProgress?.finishedAt ?? null;
    if (!(this.opts.leadsRescan?.() ?? true)) return;
    if (this.resume || (rescan > 0 && last !== null && this.clock() - last >= rescan)) void this.sweep();
  }

  /** Marks due the watched runs whose idle time has come. */
  private checkIdle(): void {
    const now = this.clock();
    const idle: RunKey[] = [];
    for (const [key, w] of this.idleAt) {
      if (w.at > now) continue;
      idle.push(w);
      this.idleAt.delete(key);
    }
    if (idle.length) this.markDue(idle);
  }

  /** Watches a run still going without a verdict until it turns idle (or forgets it). */
  private watchIdle(project: string, runId: string, lastEventMs: number | null): void {
    const key = project + SEP + runId;
    this.idleAt.delete(key);
    if (lastEventMs === null) return;
    this.idleAt.set(key, { project, run_id: runId, at: lastEventMs + this.opts.idleTimeoutMs });
    if (this.idleAt.size > MAX_GOING_TRACKED) this.idleAt.delete(this.idleAt.keys().next().value as string); // a rescan finds it
  }

  private async scan(): Promise<number> {
    // A scan that stopped early goes on where it stopped, counting on; else a new one starts.
    const at = this.resume ?? { project: null, afterProject: '', after: '' };
    if (!this.resume || !this.scanProgress || this.scanProgress.finishedAt !== null) {
      this.scanProgress = { startedAt: this.clock(), finishedAt: null, ranges: 0, found: 0, rowsTotal: 0, rowsChecked: 0 };
    }
    this.resume = null;
    const p = this.scanProgress;
    const found0 = p.found;
    const rows = this.opts.scanRows ?? 50_000;
    try {
      if (p.ranges === 0) p.rowsTotal = await storedRunRows(this.storage);
      for (;;) {
        await this.roomForMore();
        if (this.stopped) {
          this.resume = at;
          break;
        }
        if (at.project === null) {
          const next = await nextProject(this.storage, at.afterProject);
          if (next === null) {
            p.finishedAt = this.clock();
            p.rowsChecked = p.rowsTotal;
            break;
          }
          at.project = next;
          at.after = '';
        }
        const upTo = await keyRangeEnd(this.storage, at.project, at.after, rows);
        const runs = await findRunsToCheck(this.storage, at.project, at.after, upTo);
        p.ranges++;
        p.rowsChecked = Math.min(p.rowsTotal, p.rowsChecked + rows);
        p.found += this.take(at.project, runs, ++this.ranges);
        if (upTo === null) {
          at.afterProject = at.project;
          at.project = null;
        } else at.after = upTo;
      }
    } catch (err) {
      this.resume = at;
      if (!this.stopped) this.failed(err);
    }
    return p.found - found0;
  }

  /** The runs a range of the scan gave: those to analyse now are marked due, those going are watched. Returns how many are due. */
  private take(project: string, runs: readonly RunToCheck[], range: number): number {
    const now = this.clock();
    const due: Array<RunKey & { due: number }> = [];
    for (const r of runs) {
      const idleAt = r.last_event_ms + this.opts.idleTimeoutMs;
      if (!r.current || (!r.ended && idleAt <= now)) {
        // Due since its rows were stored: that is how late its analysis is.
        if (!this.dirty.has(project + SEP + r.run_id)) due.push({ project, run_id: r.run_id, due: r.current ? idleAt : r.stored_ms + this.opts.delayMs });
      } else if (!r.ended) this.watchIdle(project, r.run_id, r.last_event_ms);
    }
    if (due.length) this.markDue(due, range);
    return due.length;
  }

  /** Waits while a pass runs and at least a batch of runs waits for it (the scan's backpressure). */
  private async roomForMore(): Promise<void> {
    while (!this.stopped && this.running && this.pending >= this.batchRuns) await this.running;
  }

  private schedule(): void {
    if (this.running || this.stopped || this.dirty.size === 0) return;
    let next = Infinity;
    for (const d of this.dirty.values()) if (d.due < next) next = d.due;
    this.nextDue = next;
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
        if (!this.stopped) this.failed(err);
      })
      .finally(() => {
        this.running = null;
        this.nextDue = Infinity;
        this.schedule();
      });
    return this.running;
  }

  private failed(err: unknown): void {
    this.failures++;
    this.lastError = { message: err instanceof Error ? err.message : String(err), at: new Date().toISOString() };
    this.opts.onError?.(err);
  }

  /**
   * One pass: every run due now, by project in key order, in chunks of `batchRuns` runs (each
   * chunk sized by one count of its rows and cut into read-back batches). Between batches it
   * stops when closing, leaving the rest waiting.
   */
  private async analyseDue(): Promise<void> {
    const now = this.clock();
    const byProject = new Map<string, Dirty[]>();
    let oldest = Infinity;
    let taken = 0;
    for (const [key, d] of this.dirty) {
      if (d.due > now) continue;
      this.dirty.delete(key);
      const list = byProject.get(d.project);
      if (list) list.push(d);
      else byProject.set(d.project, [d]);
      if (d.due < oldest) oldest = d.due;
      taken++;
    }
    if (taken === 0) return;
    this.inPass = taken;
    this.passOldestDue = oldest;
    const projects = [...byProject.values()];
    try {
      if (this.needsFlush) {
        this.needsFlush = false;
        await this.opts.beforeRead?.();
      }
      for (let p = 0; p < projects.length; p++) {
        // In key order; runs a scan found, by its key range first: a batch never spans two ranges.
        const runs = projects[p].sort(
          (a, b) => (a.range ?? Infinity) - (b.range ?? Infinity) || (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0),
        );
        const project = runs[0].project;
        let done = 0;
        try {
          const batches = this.readBatches(project, runs);
          // The next batch is counted and read while this one is analysed: the engine works
          // while the analysis runs on this thread.
          let next = this.readAhead(project, batches);
          for (;;) {
            const read = await next;
            if (read === null) break;
            next = this.stopped ? Promise.resolve(null) : this.readAhead(project, batches);
            await this.analyseBatch(project, read.ids.length, read.runs);
            done += read.ids.length;
            this.inPass -= read.ids.length;
          }
          if (done < runs.length) {
            // Closing: what is left waits (and, once closed, is found by the next start's scan).
            this.putBack(runs.slice(done), false);
            for (const later of projects.slice(p + 1)) this.putBack(later, false);
            return;
          }
        } catch (err) {
          // Put back what this pass did not analyse: a later pass (or the next start's scan) retries.
          this.putBack(runs.slice(done), true);
          for (const later of projects.slice(p + 1)) this.putBack(later, true);
          throw err;
        }
      }
    } finally {
      this.inPass = 0;
      this.passOldestDue = null;
    }
  }

  /** Marks runs dirty again (unless already dirty): due after the debounce when `later` (a failure), else as they were. */
  private putBack(runs: readonly Dirty[], later: boolean): void {
    const due = this.clock() + this.opts.debounceMs;
    for (const d of runs) {
      const key = d.project + SEP + d.run_id;
      if (!this.dirty.has(key)) this.dirty.set(key, later ? { ...d, due } : d);
    }
  }

  /**
   * The read-back batches of a project's runs (sorted), in order: chunks of consecutive runs of
   * one key range, at most `batchRuns`, each sized by one count of its rows and cut at `batchRows`.
   */
  private async *readBatches(project: string, runs: readonly Dirty[]): AsyncGenerator<string[]> {
    let start = 0;
    while (start < runs.length && !this.stopped) {
      let end = start + 1;
      while (end < runs.length && end - start < this.batchRuns && runs[end].range === runs[start].range) end++;
      const ids = runs.slice(start, end).map((d) => d.run_id);
      // One run is read alone whatever its size: counting its rows would be a query for nothing.
      const sizes = ids.length > 1 ? await countRunRows(this.storage, project, ids) : new Map<string, number>();
      yield* planReadBatches(ids, sizes, this.batchRuns, this.opts.batchRows ?? 100_000);
      start = end;
    }
  }

  /** Reads the next batch back (null when none is left or the analyzer stops). */
  private readAhead(project: string, batches: AsyncGenerator<string[]>): Promise<{ ids: string[]; runs: RunRows[] } | null> {
    const read = (async () => {
      const next = await batches.next();
      if (next.done || this.stopped) return null;
      return { ids: next.value, runs: await readRuns(this.storage, project, next.value) };
    })();
    read.catch(() => {}); // the pass awaits it; when the pass stops early, nobody does
    return read;
  }

  /** Analyses a batch read back and writes its verdicts (not when closed meanwhile). */
  private async analyseBatch(project: string, size: number, runs: RunRows[]): Promise<void> {
    this.inFlight = size;
    try {
      if (runs.length === 0 || this.closed) return;
      const now = this.clock();
      const options = { now, loops: this.opts.loops, failure: { ...this.opts.failure, idleTimeoutMs: this.opts.idleTimeoutMs }, hacking: this.opts.hacking };
      const rows: ReturnType<typeof analyzeRun>[] = [];
      for (let i = 0; i < runs.length; i++) {
        // A batch of long runs takes a while to analyse: let ingest (HTTP, Kafka) go on in between.
        if (i > 0 && i % YIELD_EVERY_RUNS === 0) {
          await setImmediate();
          if (this.closed) return;
        }
        const row = analyzeRun(runs[i], options);
        rows.push(row);
        const going = row.ended_at === null || row.ended_at === undefined;
        this.countAnalysis(project + SEP + String(row.run_id), going);
        this.watchIdle(project, String(row.run_id), going && row.failure_mode === '' ? lastEventMs(row.last_event_at) : null);
      }
      // Closed while this batch was read (close() stopped waiting for it): nothing is written,
      // the next start's scan finds these runs again.
      if (this.closed) return;
      await insertRunAnalysis(this.storage, rows);
      this.analysed += rows.length;
      this.perSecond.add(rows.length);
    } finally {
      this.inFlight = 0;
    }
  }
}

/** A stored `last_event_at` ('YYYY-MM-DD hh:mm:ss.sss', UTC) in milliseconds, or null. */
function lastEventMs(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  const t = Date.parse(`${String(v).replace(' ', 'T')}Z`);
  return Number.isFinite(t) ? t : null;
}
