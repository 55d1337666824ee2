// The ingest path shared by HTTP, files and the demo: validate each event, turn the valid ones
// into rows and hand them to the batching writer. A bad event is reported with its index and
// reason; the rest of its batch is stored.
import type { IngestResponse } from '../schemas/api.js';
import type { TrajEvent } from '../schemas/normalize-event.js';
import type { PriceBook } from '../analytics/pricing.js';
import type { BatchWriter } from './batch-writer.js';
import { eventsToRows } from './event-rows.js';
import type { ParsedItem } from './parse-body.js';
import { validateItems } from './validate-items.js';
import { RunModelCache } from './run-model-cache.js';

export interface IngestorOptions {
  maxTextChars: number;
  defaultProject: string;
}

export interface IngestCall {
  /** The authenticated key's project, which overrides what events say. */
  project?: string;
  /** Wait until the rows are stored (default true). */
  wait?: boolean;
}

/** Told about events once the writer has them (stored=true: once they are stored). */
export type StoredEventsObserver = (events: readonly TrajEvent[], stored: boolean) => void;

export class EventIngestor {
  private readonly runModels = new RunModelCache(50_000);
  private readonly observers: StoredEventsObserver[] = [];

  constructor(
    private readonly writer: BatchWriter,
    private readonly prices: PriceBook,
    private readonly opts: IngestorOptions,
  ) {}

  /** Validates and stores a batch of raw values. */
  async ingest(items: readonly ParsedItem[], call: IngestCall = {}): Promise<IngestResponse> {
    const { valid, rejected } = validateItems(items, {
      maxTextChars: this.opts.maxTextChars,
      defaultProject: this.opts.defaultProject,
      forcedProject: call.project,
      now: Date.now(),
    });
    const events = valid.map((v) => v.event);
    await this.store(events, call.wait ?? true);
    return { accepted: events.length, rejected };
  }

  /** Stores already-normalized events (importers, demo). */
  async store(events: readonly TrajEvent[], wait = true): Promise<void> {
    if (events.length === 0) return;
    for (const e of events) if (e.type === 'run_start' && e.model) this.runModels.set(e.project, e.run_id, e.model);
    const rows = eventsToRows(events, {
      prices: this.prices,
      runModel: (project, runId) => this.runModels.get(project, runId),
    });
    await this.writer.add(rows, wait);
    for (const observe of this.observers) observe(events, wait);
  }

  /** Adds an observer of stored events (the run analyzer, live detectors). */
  observe(observer: StoredEventsObserver): void {
    this.observers.push(observer);
  }
}
