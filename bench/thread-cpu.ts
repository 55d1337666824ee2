// CPU time of a process's threads from /proc (Linux), grouped: its main thread, Node's other
// threads (V8's garbage-collection and compiler workers, libuv's pool, from which the embedded
// engine's calls run), the engine's merge threads and its other named threads. Two readings
// give what each group used in between: where a worker's CPU goes while it drains a backlog.
import { readdirSync, readFileSync } from 'node:fs';

export type ThreadCpu = Map<string, number>;

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on Linux

function group(pid: number, tid: number, name: string): string {
  if (tid === pid) return 'main thread';
  if (name === 'node' || name.startsWith('V8') || name.startsWith('libuv')) return 'other Node threads';
  if (name.startsWith('MergeMutate')) return 'engine merges';
  return 'engine';
}

/** CPU seconds used so far by each group of the process's threads (empty when /proc has no such process). */
export function threadCpu(pid: number): ThreadCpu {
  const out: ThreadCpu = new Map();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime + stime
      const key = group(pid, Number(tid), name);
      out.set(key, (out.get(key) ?? 0) + seconds);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** What each group used between two readings (threads that ended in between are not counted). */
export function cpuBetween(before: ThreadCpu, after: ThreadCpu): ThreadCpu {
  const out: ThreadCpu = new Map();
  for (const [k, v] of after) out.set(k, Math.max(0, v - (before.get(k) ?? 0)));
  return out;
}
