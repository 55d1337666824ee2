// `trajscope import FILES...`: NDJSON files of our events, streamed in batches with a progress
// bar and a summary of what was imported and what was skipped, with the reason.
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SingleBar, Presets } from 'cli-progress';
import type { Config } from './config.js';
import { openSink, type EventSink } from './event-sink.js';

const BATCH = 5_000;
const MAX_REPORTED = 20;

export interface ImportOptions {
  url?: string;
  project?: string;
}

interface Skipped {
  file: string;
  line: number;
  error: string;
}

/** Returns the process exit code: 0 when everything was imported, 1 when something was skipped. */
export async function runImport(config: Config, paths: string[], o: ImportOptions): Promise<number> {
  const files = expandFiles(paths);
  const totalBytes = files.reduce((n, f) => n + statSync(f).size, 0);
  const sink = await openSink(config, o.url, o.project);
  const bar = new SingleBar(
    { format: 'importing [{bar}] {percentage}% | {events} events | {file}', hideCursor: true, noTTYOutput: true, notTTYSchedule: 2000, stream: process.stderr },
    Presets.shades_classic,
  );
  bar.start(totalBytes, 0, { events: 0, file: '' });
  const skipped: Skipped[] = [];
  let accepted = 0;
  let skippedCount = 0;
  let bytesDone = 0;
  try {
    for (const file of files) {
      const counts = await importFile(sink, file, (bytes, events) => bar.update(bytesDone + bytes, { events: accepted + events, file }), (s) => {
        skippedCount++;
        if (skipped.length < MAX_REPORTED) skipped.push(s);
      });
      accepted += counts.accepted;
      bytesDone += statSync(file).size;
      bar.update(bytesDone, { events: accepted, file });
    }
  } finally {
    bar.stop();
    await sink.close();
  }
  console.log(`imported ${accepted} events from ${files.length} file(s); skipped ${skippedCount}`);
  for (const s of skipped) console.log(`  skipped ${s.file}:${s.line}: ${s.error}`);
  if (skippedCount > skipped.length) console.log(`  ... and ${skippedCount - skipped.length} more`);
  return skippedCount ? 1 : 0;
}

function expandFiles(paths: string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) throw new Error(`no such file or folder: ${p}`);
    if (st.isDirectory()) {
      for (const f of readdirSync(p).sort()) if (/\.(ndjson|jsonl)$/.test(f)) out.push(join(p, f));
    } else out.push(p);
  }
  if (out.length === 0) throw new Error('no .ndjson or .jsonl files found');
  return out;
}

async function importFile(
  sink: EventSink,
  file: string,
  progress: (bytes: number, events: number) => void,
  skip: (s: Skipped) => void,
): Promise<{ accepted: number }> {
  const stream = createReadStream(file);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let batch: unknown[] = [];
  let batchLines: number[] = [];
  let accepted = 0;
  let lineNo = 0;
  const flush = async () => {
    if (!batch.length) return;
    const r = await sink.send(batch);
    accepted += r.accepted;
    for (const rej of r.rejected) skip({ file, line: batchLines[rej.index], error: rej.error });
    batch = [];
    batchLines = [];
    progress(stream.bytesRead, accepted);
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
  return { accepted };
}
