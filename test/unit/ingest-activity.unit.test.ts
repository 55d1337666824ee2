// The ingest panel's in-memory activity: events per second over the last minute, totals and
// the latest rejections, bounded.
import { describe, expect, it } from 'vitest';
import { IngestActivity } from '../../server/ingest-status/ingest-activity.js';

describe('IngestActivity', () => {
  it('counts accepted events per second over the last 60 complete seconds', () => {
    let now = 1_000_000_000_000;
    const a = new IngestActivity(() => now);
    a.record(30, []);
    now += 400;
    a.record(20, []);
    now += 1000;
    a.record(5, []);
    now += 1000;
    const s = a.snapshot();
    expect(s.per_second).toHaveLength(60);
    expect(s.per_second.slice(-2)).toEqual([50, 5]);
    expect(s.events_per_second).toBe(5.5);
    expect(s.accepted_total).toBe(55);
    // A minute later the old seconds are gone.
    now += 61_000;
    expect(a.snapshot().per_second.every((n) => n === 0)).toBe(true);
    expect(a.snapshot().accepted_total).toBe(55);
  });

  it('keeps the newest rejections first, at most 50, at most 10 per request', () => {
    let now = Date.parse('2026-11-30T10:00:00Z');
    const a = new IngestActivity(() => now);
    a.record(1, [{ index: 3, error: 'run_id: required' }]);
    now += 1000;
    a.record(0, Array.from({ length: 30 }, (_, i) => ({ index: i, error: `bad ${i}` })));
    const s = a.snapshot();
    expect(s.rejected_total).toBe(31);
    expect(s.recent_rejections).toHaveLength(11);
    expect(s.recent_rejections[0]).toEqual({ at: '2026-11-30T10:00:01.000Z', source: 'http', index: 0, error: 'bad 0' });
    expect(s.recent_rejections[10].error).toBe('run_id: required');
    for (let i = 0; i < 10; i++) a.record(0, Array.from({ length: 10 }, () => ({ index: 0, error: 'x' })));
    expect(a.snapshot().recent_rejections).toHaveLength(50);
  });
});
