// `trajscope import FILES...`: trajectories of other tools (SWE-agent, OpenHands, tau-bench and
// other OpenAI-style chat transcripts, Inspect) and our own NDJSON, the format detected per file,
// with a progress bar and a summary of the runs, steps and tool calls imported and of what was
// skipped, with the reason. Our NDJSON is streamed line by line; other formats are converted by
// the importers of ingest/importers/ and sent in batches.
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SingleBar, Presets } from 'cli-progress';
import type { Config } from './config.js';
import { openSink, SinkRefusedError, type EventSink } from './event-sink.js';
import { FORMAT_NAMES } from '../ingest/importers/detect.js';
import { readFileItems, sniffFile, UnknownFormatError } from '../ingest/importers/read-file.js';
import type { ImportFormat } from '../ingest/importers/types.js';

const BATCH = 5_000;
/** Characters of text per batch sent (kept well under the server's body limit). */
const BATCH_CHARS = 8_000_000;
const MAX_REPORTED = 20;
/** What a folder is searched for (recursively); other files are not looked at. */
const IMPORTABLE = /\.(ndjson|jsonl|json|traj|eval)$/i;

export interface ImportOptions {
  url?: string;
  project?: string;
  /** API key for a server that asks for one (with --url). */
  key?: string;
  /** Where the progress bar goes; false for none (tests). */
  progress?: boolean;
}

export interface Skipped {
  file: string;
  /** Line number of an NDJSON event, or where in the file ("record 3", "samples/1_epoch_1.json"). */
  line?: number;
  where?: string;
  error: string;
}

export interface ImportSummary {
  files: number;
  runs: number;
  steps: number;
  toolCalls: number;
  events: number;
  /** Runs per status of their run_end events. */
  outcomes: Record<string, number>;
  /** Files per detected format. */
  formats: Partial<Record<ImportFormat, number>>;
  skipped: Skipped[];
  skippedCount: number;
  /** Files found in a folder that are not trajectories (e.g. SWE-agent's all_preds.jsonl). */
  ignored: { file: string; reason: string }[];
  /** Files understood but holding nothing to import (e.g. an Inspect log without samples). */
  notes: { file: string; note: string }[];
}

export interface FileRef {
  path: string;
  /** Named on the command line (an unknown format is an error) rather than found in a folder. */
  explicit: boolean;
}

/** Returns the process exit code: 0 when everything was imported, 1 when something was skipped. */
export async function runImport(config: Config, paths: string[], o: ImportOptions): Promise<number> {
  const files = expandFiles(paths);
  const sink = await openSink(config, o.url, o.project, o.key);
  let summary: ImportSummary;
  try {
    summary = await importFiles(sink, files, o.progress !== false);
  } finally {
    await sink.close();
  }
  for (const line of formatSummary(summary)) console.log(line);
  return summary.skippedCount ? 1 : 0;
}

export function formatSummary(s: ImportSummary): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const out = [
    `imported ${n(s.runs)} run(s), ${n(s.steps)} step(s), ${n(s.toolCalls)} tool call(s) (${n(s.events)} events) from ${s.files} file(s); skipped ${s.skippedCount}`,
  ];
  const outcomes = Object.entries(s.outcomes).sort((a, b) => b[1] - a[1]);
  if (outcomes.length) out.push(`  outcomes: ${outcomes.map(([k, v]) => `${k} ${n(v)}`).join(', ')}`);
  const formats = Object.entries(s.formats).map(([f, c]) => `${FORMAT_NAMES[f as ImportFormat]} ${c}`);
  if (formats.length) out.push(`  formats: ${formats.join(', ')}`);
  for (const x of s.notes) out.push(`  nothing to import in ${x.file}: ${x.note}`);
  for (const x of s.ignored) out.push(`  ignored ${x.file}: ${x.reason}`);
  for (const x of s.skipped) out.push(`  skipped ${x.file}${x.line !== undefined ? `:${x.line}` : x.where ? ` (${x.where})` : ''}: ${x.error}`);
  if (s.skippedCount > s.skipped.length) out.push(`  ... and ${s.skippedCount - s.skipped.length} more`);
  return out;
}

/** The files named, and the importable files of the folders named (recursively, hidden ones left out). */
export function expandFiles(paths: string[]): FileRef[] {
  const out: FileRef[] = [];
  for (const p of paths) {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) throw new Error(`no such file or folder: ${p}`);
    if (st.isDirectory()) {
      const found = (readdirSync(p, { recursive: true }) as string[])
        .filter((f) => IMPORTABLE.test(f) && !f.split(/[\\/]/).some((part) => part.startsWith('.')))
        .sort()
        .map((f) => join(p, f))
        .filter((f) => statSync(f).isFile());
      out.push(...found.map((path) => ({ path, explicit: false })));
    } else out.push({ path: p, explicit: true });
  }
  if (out.length === 0) throw new Error('no .ndjson, .jsonl, .json, .traj or .eval files found');
  return out;
}

/** Imports the files through the sink and counts what the sink accepted. */
export async function importFiles(sink: EventSink, files: FileRef[] | string[], showProgress = true): Promise<ImportSummary> {
  const refs: FileRef[] = files.map((f) => (typeof f === 'string' ? { path: f, explicit: true } : f));
  const totalBytes = refs.reduce((n, f) => n + statSync(f.path).size, 0);
  const bar = showProgress
    ? new SingleBar(
        { format: 'importing [{bar}] {percentage}% | {runs} runs | {events} events | {file}', hideCursor: true, noTTYOutput: true, notTTYSchedule: 2000, stream: process.stderr },
        Presets.shades_classic,
      )
    : undefined;
  const s: ImportSummary = { files: refs.length, runs: 0, steps: 0, toolCalls: 0, events: 0, outcomes: {}, formats: {}, skipped: [], skippedCount: 0, ignored: [], notes: [] };
  const runIds = new Set<string>();
  const skip = (x: Skipped) => {
    s.skippedCount++;
    if (s.skipped.length < MAX_REPORTED) s.skipped.push(x);
  };
  /** Sends events and counts what was accepted; rejected events are skipped with the server's reason. */
  const send = async (files: string[], events: unknown[], lines?: number[]) => {
    if (!events.length) return;
    const r = await sink.send(events);
    const rejected = new Set<number>();
    for (const rej of r.rejected) {
      rejected.add(rej.index);
      const e = events[rej.index] as { run_id?: unknown; type?: unknown; step?: unknown } | undefined;
      const file = files[rej.index] ?? files[0];
      if (lines) skip({ file, line: lines[rej.index], error: rej.error });
      else skip({ file, where: `${String(e?.run_id ?? '?')} ${String(e?.type ?? '')}${e?.step !== undefined ? ` ${String(e.step)}` : ''}`, error: rej.error });
    }
    events.forEach((e, i) => {
      if (rejected.has(i) || !e || typeof e !== 'object') return;
      const ev = e as { type?: unknown; run_id?: unknown; status?: unknown };
      s.events++;
      if (typeof ev.run_id === 'string') runIds.add(ev.run_id);
      if (ev.type === 'step') s.steps++;
      else if (ev.type === 'tool_call') s.toolCalls++;
      else if (ev.type === 'run_end' && typeof ev.status === 'string') s.outcomes[ev.status] = (s.outcomes[ev.status] ?? 0) + 1;
    });
    s.runs = runIds.size;
  };
  // Converted events of many (small) files share batches: one store per batch, not per file.
  let batch: unknown[] = [];
  let batchFiles: string[] = [];
  let chars = 0;
  const flush = async () => {
    const [events, files] = [batch, batchFiles];
    batch = [];
    batchFiles = [];
    chars = 0;
    await send(files, events);
  };

  bar?.start(totalBytes, 0, { events: 0, runs: 0, file: '' });
  let bytesDone = 0;
  try {
    for (const f of refs) {
      const size = statSync(f.path).size;
      const tick = (bytes: number) => bar?.update(bytesDone + Math.min(bytes, size), { events: s.events, runs: s.runs, file: f.path });
      tick(0);
      try {
        const sniffed = await sniffFile(f.path);
        if (sniffed.kind === 'lines' && sniffed.format === 'trajscope-ndjson') {
          count(s, 'trajscope-ndjson');
          await flush();
          await importNdjson(f.path, (events, lines) => send(events.map(() => f.path), events, lines), skip, tick);
        } else {
          let format: ImportFormat | undefined = sniffed.kind === 'zip' ? 'inspect' : undefined;
          let anything = false;
          for await (const item of readFileItems(f.path, sniffed)) {
            if ('skip' in item) skip({ file: f.path, where: item.skip.where || undefined, error: item.skip.reason });
            else if ('note' in item) s.notes.push({ file: f.path, note: item.note });
            else {
              const events = 'run' in item ? item.run.events : item.events;
              format ??= 'run' in item ? formatOf(item.run.events[0]) : 'trajscope-json';
              anything = true;
              for (const e of events) {
                batch.push(e);
                batchFiles.push(f.path);
                chars += textChars(e);
              }
              if (batch.length >= BATCH || chars >= BATCH_CHARS) {
                await flush();
                tick(size / 2);
              }
            }
          }
          if (anything || format) count(s, format ?? 'trajscope-json');
        }
      } catch (err) {
        // A refused key refuses every file: stop with the server's reason.
        if (err instanceof SinkRefusedError) throw err;
        if (err instanceof UnknownFormatError && !f.explicit) s.ignored.push({ file: f.path, reason: err.message });
        else skip({ file: f.path, error: err instanceof UnknownFormatError ? `unknown format: ${err.message}` : `cannot import: ${(err as Error).message}` });
      }
      bytesDone += size;
      tick(0);
    }
    await flush();
  } finally {
    bar?.stop();
  }
  return s;
}

function count(s: ImportSummary, f: ImportFormat): void {
  s.formats[f] = (s.formats[f] ?? 0) + 1;
}

function formatOf(e: unknown): ImportFormat | undefined {
  const meta = (e as { metadata?: { import?: { format?: ImportFormat } } } | undefined)?.metadata;
  return meta?.import?.format;
}

function textChars(e: unknown): number {
  const x = e as { action?: string; observation?: string; output?: string };
  return 300 + (x.action?.length ?? 0) + (x.observation?.length ?? 0) + (x.output?.length ?? 0);
}

/** Trajscope NDJSON, streamed in batches; bad lines are skipped with their line number. */
async function importNdjson(
  file: string,
  send: (events: unknown[], lines: number[]) => Promise<void>,
  skip: (s: Skipped) => void,
  tick: (bytes: number) => void,
): Promise<void> {
  const stream = createReadStream(file);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let batch: unknown[] = [];
  let batchLines: number[] = [];
  let lineNo = 0;
  const flush = async () => {
    await send(batch, batchLines);
    batch = [];
    batchLines = [];
    tick(stream.bytesRead);
  };
  for await (const line of lines) {
    lineNo++;
    const t = line.trim();
    if (!t) continue;
    try {
      batch.push(JSON.parse(t));
      batchLines.push(lineNo);
    } catch (err) {
      skip({ file, line: lineNo, error: `invalid JSON: ${(err as Error).message}` });
    }
    if (batch.length >= BATCH) await flush();
  }
  await flush();
}
