// What POST /v1/events has seen lately, for the ingest panel: accepted events per second over
// the last minute and the most recent rejections with their reasons. In memory, per process,
// bounded (60 one-second buckets, RECENT_REJECTIONS entries). No I/O.
import { keepRecent } from '../../ingest/recent-list.js';
import type { IngestActivity as IngestActivitySnapshot } from '../../schemas/ingest-status.js';

const SECONDS = 60;
const RECENT_REJECTIONS = 50;

export class IngestActivity {
  private readonly buckets = new Float64Array(SECONDS);
  private readonly bucketSecond = new Float64Array(SECONDS).fill(-1);
  private acceptedTotal = 0;
  private rejectedTotal = 0;
  private readonly recent: IngestActivitySnapshot['recent_rejections'] = [];

  constructor(private readonly clock: () => number = Date.now) {}

  /** One answered request: how many events were stored or buffered, and each rejection. */
  record(accepted: number, rejected: ReadonlyArray<{ index: number; error: string }>, source = 'http'): void {
    const now = this.clock();
    const sec = Math.floor(now / 1000);
    const i = sec % SECONDS;
    if (this.bucketSecond[i] !== sec) {
      this.bucketSecond[i] = sec;
      this.buckets[i] = 0;
    }
    this.buckets[i] += accepted;
    this.acceptedTotal += accepted;
    this.rejectedTotal += rejected.length;
    const at = new Date(now).toISOString();
    // Newest first; a request with many rejections keeps only its first few.
    const entries = rejected.slice(0, RECENT_REJECTIONS).map((r) => ({ at, source, index: r.index, error: r.error.slice(0, 500) }));
    keepRecent(this.recent, entries, RECENT_REJECTIONS);
  }

  snapshot(): IngestActivitySnapshot {
    const sec = Math.floor(this.clock() / 1000);
    const per_second: number[] = [];
    // The last 60 complete seconds, oldest first (the current second is still filling).
    for (let s = sec - SECONDS; s < sec; s++) {
      const i = ((s % SECONDS) + SECONDS) % SECONDS;
      per_second.push(this.bucketSecond[i] === s ? this.buckets[i] : 0);
    }
    const last10 = per_second.slice(-10).reduce((a, b) => a + b, 0);
    return {
      events_per_second: last10 / 10,
      per_second,
      accepted_total: this.acceptedTotal,
      rejected_total: this.rejectedTotal,
      recent_rejections: [...this.recent],
    };
  }
}
