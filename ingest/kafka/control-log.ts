// The control topic as the leader's log (pure): a leader's first record is its marker (key
// `leader`), and the marker's offset is its epoch; every later record of a leader carries that
// epoch in a header. Replaying the log in offset order, a record whose epoch is older than the
// latest marker before it was written by a deposed leader after its successor took over: it is
// ignored (the fence on writes). The newest record of a key wins; a record without a value
// (a tombstone) removes its key.

export const LEADER_KEY = 'leader';

export interface ControlRecord {
  offset: number;
  key: string;
  /** The leader's epoch (its marker's offset); the marker's own is its offset. */
  epoch: number;
  /** Parsed JSON value; null for a tombstone. */
  value: unknown;
}

export class ControlLogFold {
  /** The latest marker seen so far: records of older epochs are fenced off. */
  fence = -1;
  /** Records kept, the newest per key (markers are not kept). */
  readonly entries = new Map<string, ControlRecord>();
  /** Records ignored because a newer leader had taken over before they were written. */
  fenced = 0;

  add(r: ControlRecord): void {
    if (r.key === LEADER_KEY) {
      this.fence = Math.max(this.fence, r.offset);
      return;
    }
    if (r.epoch < this.fence) {
      this.fenced++;
      return;
    }
    if (r.value === null) this.entries.delete(r.key);
    else this.entries.set(r.key, r);
  }

  /** The values of the keys that start with `prefix`, in offset order. */
  values(prefix: string): unknown[] {
    return [...this.entries.values()].filter((r) => r.key.startsWith(prefix)).sort((a, b) => a.offset - b.offset).map((r) => r.value);
  }
}
