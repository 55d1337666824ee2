// Answers derived from the tables, reused until the storage is written again. Embedded, this
// process is the only writer, so an answer is exact until an insert or command finishes through
// the storage; the dashboard asks for the same views again and again while nothing changes, and
// chDB runs one query at a time, so a repeated request answered from memory also leaves the
// engine free. Used by the RL views (whole serialised answers) and the stale-run check.
import type { Storage } from './gateway.js';

/** Longest reuse of an answer when other processes may write (a ClickHouse server). */
const SHARED_STORAGE_MS = 1000;
/** Answers kept per storage (a serialised answer is up to a few MB); beyond this the oldest goes. */
const MAX_ANSWERS = 32;

interface Entry {
  at: number;
  value: Promise<unknown>;
}

interface Answers {
  /** The storage's write counter the entries were computed at. */
  writes: number;
  entries: Map<string, Entry>;
}

const cached = new WeakMap<Storage, Answers>();

/**
 * The answer of `compute` for `key` (an endpoint and its parsed request), computed once per
 * storage write counter: embedded, this process is the only writer, so an answer is reused exactly
 * until an insert or command finishes through the storage; on a ClickHouse server (other
 * processes write too) also for at most SHARED_STORAGE_MS. Concurrent requests share one
 * computation; a failed one is not kept. Storages that do not count writes are never cached.
 */
export function cachedAnswer<T>(storage: Storage, key: unknown, compute: () => Promise<T>): Promise<T> {
  const writes = storage.writes;
  if (writes === undefined) return compute();
  let answers = cached.get(storage);
  if (!answers || answers.writes !== writes) {
    // Written since: every kept answer may be out of date.
    answers = { writes, entries: new Map() };
    cached.set(storage, answers);
  }
  const { entries } = answers;
  const k = JSON.stringify(key);
  const now = Date.now();
  const hit = entries.get(k);
  if (hit && (storage.embedded || now - hit.at < SHARED_STORAGE_MS)) return hit.value as Promise<T>;
  entries.delete(k);
  if (entries.size >= MAX_ANSWERS) entries.delete(entries.keys().next().value as string);
  const value = compute();
  entries.set(k, { at: now, value });
  value.catch(() => {
    if (entries.get(k)?.value === value) entries.delete(k);
  });
  return value;
}
