// Backfill: demo runs one at a time (a generator), spread over a time window.
import { buildRun, type BuiltRun, type DemoEvent, type DemoRunTruth } from './run-builder.js';
import { mixSeed, Rng } from './prng.js';
import { Timeline } from './timeline.js';

export interface DemoRunsOptions {
  /** Same seed, same output, byte for byte. */
  seed: number;
  /** Number of runs to generate. */
  runs: number;
  /** Project of every event (default `demo`). */
  project?: string;
  /** Start of the time window, epoch ms. */
  startMs: number;
  /** Length of the time window, ms; every event's ts falls inside it. */
  spanMs: number;
  /** Start at this run (0 by default): the runs from it on are those of a whole generation, e.g. to resume one. */
  from?: number;
}

export interface DemoRun {
  truth: DemoRunTruth;
  events: DemoEvent[];
}

export const DEFAULT_DEMO_PROJECT = 'demo';

export function checkSeed(seed: number): void {
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
}

function checkOptions(opts: DemoRunsOptions): void {
  checkSeed(opts.seed);
  if (!Number.isInteger(opts.runs) || opts.runs < 0) throw new RangeError(`runs must be a non-negative integer, got ${opts.runs}`);
  if (!Number.isFinite(opts.startMs) || opts.startMs < 0) throw new RangeError(`startMs must be epoch milliseconds, got ${opts.startMs}`);
  if (!Number.isFinite(opts.spanMs) || opts.spanMs < 0) throw new RangeError(`spanMs must be a non-negative number, got ${opts.spanMs}`);
  if (opts.from !== undefined && (!Number.isInteger(opts.from) || opts.from < 0)) throw new RangeError(`from must be a non-negative integer, got ${opts.from}`);
}

/**
 * Gives the run's events their ISO timestamps: start + offset × scale (scale ≤ 1 squeezes).
 * Sets them in place: a built run's events are fresh objects, placed once.
 */
export function placeRun(run: BuiltRun, startMs: number, scale = 1): DemoEvent[] {
  for (let i = 0; i < run.events.length; i++) run.events[i].ts = new Date(Math.floor(startMs + run.offsets[i] * scale)).toISOString();
  return run.events;
}

/**
 * Demo runs with what each was built to show (outcome, loop, flags): for tests and for
 * checking the analytics against known answers.
 */
export function* generateDemoRunDetails(opts: DemoRunsOptions): Generator<DemoRun, void, undefined> {
  checkOptions(opts);
  const project = opts.project ?? DEFAULT_DEMO_PROJECT;
  const timeline = new Timeline(opts.seed, opts.startMs, opts.spanMs);
  const endMs = opts.startMs + opts.spanMs;
  for (let index = opts.from ?? 0; index < opts.runs; index++) {
    const built = buildRun({ seed: opts.seed, index, project, rollout: opts.runs > 1 ? index / (opts.runs - 1) : 1 });
    const u = (index + new Rng(mixSeed(opts.seed, index, 'start')).next()) / opts.runs;
    const scale = built.durationMs > opts.spanMs ? opts.spanMs / built.durationMs : 1;
    const length = Math.floor(built.durationMs * scale);
    const start = Math.max(opts.startMs, Math.min(timeline.at(u), endMs - length));
    yield { truth: built.truth, events: placeRun(built, start, scale) };
  }
}

/** Demo runs as arrays of events of contract v1, one run at a time. */
export function* generateDemoRuns(opts: DemoRunsOptions): Generator<DemoEvent[], void, undefined> {
  for (const run of generateDemoRunDetails(opts)) yield run.events;
}
