// Says in the log that messages went to the dead-letter topic, without flooding it: the first
// batch with dead letters is logged at once, later ones are added up and logged at most once per
// interval (a producer that sends nothing but bad messages would otherwise write a line per
// batch); what was added up is written when the interval is over, also when no more come. The
// counts and the latest reasons are in the ingest status as well; this is for whoever reads the
// worker's log.

export interface DeadLetterNote {
  topic: string;
  partition: number;
  count: number;
  /** The reason of one of the batch's dead letters (the first). */
  reason: string;
}

export class DeadLetterLog {
  private count = 0;
  private readonly partitions = new Set<string>();
  private reason = '';
  private lastLineAt = -Infinity;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dlqTopic: string,
    private readonly write: (line: string) => void,
    private readonly everyMs = 10_000,
    private readonly clock: () => number = Date.now,
  ) {}

  /** A batch's dead letters were sent to the dead-letter topic. */
  sent(note: DeadLetterNote): void {
    this.count += note.count;
    this.partitions.add(`${note.topic}[${note.partition}]`);
    this.reason = note.reason;
    const since = this.clock() - this.lastLineAt;
    if (since >= this.everyMs) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.everyMs - since);
      this.timer.unref();
    }
  }

  /** Writes what was added up since the last line, if anything (also when stopping). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.count === 0) return;
    const from = [...this.partitions].sort().join(', ');
    const what = this.count === 1 ? '1 message' : `${this.count} messages`;
    this.write(`kafka: ${what} of ${from} went to ${this.dlqTopic} (latest reason: ${this.reason})`);
    this.count = 0;
    this.partitions.clear();
    this.reason = '';
    this.lastLineAt = this.clock();
  }
}
