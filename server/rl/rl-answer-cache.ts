// Answers of the RL endpoints, reused until the storage is written again. Each RL view aggregates
// every analysed rollout of its filters (about 500,000 rows over a post-training run); the
// dashboard asks for the same views again and again while nothing changes, and chDB runs one
// query at a time, so a repeated request answered from memory also leaves the engine free.
import type { Storage } from '../../storage/gateway.js';

/** Longest reuse of an answer when other processes may write (a ClickHouse server). */
const SHARED_STORAGE_MS = 1000;
/** Answers kept per storage; beyond this the oldest is dropped. */
const MAX_ANSWERS = 64;

interface Entry {
  writes: number;
  at: number;
  value: Promise<unknown>;
}

const answers = new WeakMap<Storage, Map<string, Entry>>();

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
  let cache = answers.get(storage);
  if (!cache) answers.set(storage, (cache = new Map()));
  const k = JSON.stringify(key);
  const now = Date.now();
  const hit = cache.get(k);
  if (hit && hit.writes === writes && (storage.embedded || now - hit.at < SHARED_STORAGE_MS)) return hit.value as Promise<T>;
  cache.delete(k);
  if (cache.size >= MAX_ANSWERS) cache.delete(cache.keys().next().value as string);
  const value = compute();
  cache.set(k, { writes, at: now, value });
  value.catch(() => {
    if (cache.get(k)?.value === value) cache.delete(k);
  });
  return value;
}
