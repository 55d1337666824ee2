// The ingest path shared by HTTP, files and the demo: validate each event, turn the valid ones
// into rows and hand them to the batching writer. A bad event is reported with its index and
// reason; the rest of its batch is stored.
import type { IngestResponse } from '../schemas/api.js';
import type { TrajEvent } from '../schemas/normalize-event.js';
import type { PriceBook } from '../analytics/pricing.js';
import { eventParts, type EventParts } from '../analytics/signed-step.js';
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

/**
 * Told about events as soon as the writer has taken their rows (it retries them until they are
 * stored), with the signature parts of their steps and tool calls (worked out once, for the rows
 * and the live loop detector). `stored` settles once they are stored; it is null when the caller
 * does not wait for that (demo, imports), and observers then must not count on it. An observer
 * keeps only what it needs: the events themselves are let go right after, so that a batch in
 * hand is its rows' bytes and nothing more.
 */
export type IngestObserver = (events: readonly TrajEvent[], parts: EventParts, stored: Promise<void> | null) => void;

export class EventIngestor {
  private readonly runModels = new RunModelCache(50_000);
  private readonly observers: IngestObserver[] = [];

  constructor(
    private readonly writer: BatchWriter,
    private readonly prices: PriceBook,
    private readonly opts: IngestorOptions,
  ) {}

  /** Validates and stores a batch of raw values. */
  async ingest(items: readonly ParsedItem[], call: IngestCall = {}): Promise<IngestResponse> {
    const wait = call.wait ?? true;
    const { response, events } = this.validate(items, call);
    await this.handOver(events, wait);
    return response;
  }

  /**
   * Validates a batch and hands its valid events to the writer without waiting for them to be
   * stored: `stored` settles once they are, so a caller can take the next batch meanwhile.
   * Throws BackpressureError, taking nothing, when the writer is full.
   */
  submit(items: readonly ParsedItem[], call: Omit<IngestCall, 'wait'> = {}): { response: IngestResponse; stored: Promise<void> } {
    const { response, events } = this.validate(items, call);
    return { response, stored: this.handOver(events, true) };
  }

  /** Stores already-normalized events (importers, demo). */
  async store(events: readonly TrajEvent[], wait = true): Promise<void> {
    await this.handOver(events, wait);
  }

  private validate(items: readonly ParsedItem[], call: IngestCall): { response: IngestResponse; events: TrajEvent[] } {
    const { valid, rejected } = validateItems(items, {
      maxTextChars: this.opts.maxTextChars,
      defaultProject: this.opts.defaultProject,
      forcedProject: call.project,
      now: Date.now(),
    });
    const events = valid.map((v) => v.event);
    return { response: { accepted: events.length, rejected }, events };
  }

  /** Rows to the writer now (a full writer throws here), then observers; settles once stored, when `wait`. */
  private handOver(events: readonly TrajEvent[], wait: boolean): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    for (const e of events) if (e.type === 'run_start' && e.model) this.runModels.set(e.project, e.run_id, e.model);
    const parts = eventParts(events);
    const rows = eventsToRows(
      events,
      { prices: this.prices, runModel: (project, runId) => this.runModels.get(project, runId) },
      parts,
    );
    const stored = this.writer.add(rows, wait);
    for (const observe of this.observers) observe(events, parts, wait ? stored : null);
    return stored;
  }

  /** Adds an observer of ingested events (the run analyzer, live detectors, alerts). */
  observe(observer: IngestObserver): void {
    this.observers.push(observer);
  }
}
