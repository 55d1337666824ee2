// What every importer produces: runs of raw v1 events (schemas/events.ts), or a reason why a
// part of a file was skipped. Converters are pure; the caller reads files and sends events.
import type { RawEvent } from '../../schemas/events.js';

export type ImportFormat = 'trajscope-ndjson' | 'trajscope-json' | 'swe-agent' | 'openhands' | 'chat-transcript' | 'tau-bench' | 'inspect';

/** One converted run: its events in order (run_start first, run_end last when the run ended). */
export interface ImportedRun {
  run_id: string;
  events: RawEvent[];
}

/** A run (or a whole file) that could not be understood, with a reason a person can act on. */
export interface ImportSkip {
  /** Where in the file: "task 3 trial 1", "line 12", "samples/2_epoch_1.json", or "" for the whole file. */
  where: string;
  reason: string;
}

export type ImportItem = { run: ImportedRun } | { skip: ImportSkip } | { note: string };

/** What a converter knows about the file it converts (no I/O is done by converters). */
export interface SourceInfo {
  /** The file path as given (used for readable run ids and messages). */
  path: string;
  /** Modification time in epoch ms: the anchor for estimated timestamps when a format has none. */
  mtimeMs: number;
}
