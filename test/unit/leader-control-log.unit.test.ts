// The pure parts of the leader election: when a member leads, how the control log is replayed
// (epochs fence off a deposed leader's late writes), and the derived ids of window firings.
import { describe, expect, it } from 'vitest';
import { ControlLogFold, LEADER_KEY } from '../../ingest/kafka/control-log.js';
import { leadsNow } from '../../ingest/kafka/leader-election.js';
import { deliveryRecordKey, replayedProgress, stateRecordKey, windowDeliveryId, windowFiringId } from '../../alerts/leader-gate.js';

const marker = (offset: number) => ({ offset, key: LEADER_KEY, epoch: offset, value: { member: 'x' } });
const item = (id: string, state: 'pending' | 'delivered' = 'pending') => ({
  delivery_id: id, firing_id: 'f', rule_id: 'r', webhook_id: 'w', url: 'http://127.0.0.1/h', format: 'json', body: '{}', state,
  attempts: 0, next_attempt_at: 0, last_error: '', created_at: 0,
});

describe('leadsNow', () => {
  const facts = { holdsPartition: true, epoch: 7, caughtUp: true, lastHeartbeatAt: 10_000 };
  it('leads with the partition, an epoch read back and a fresh heartbeat', () => {
    expect(leadsNow(facts, 12_999, 6_000)).toBe(true);
  });
  it('stops leading half a session after the last heartbeat, before the group could hand the partition on', () => {
    expect(leadsNow(facts, 13_000, 6_000)).toBe(false);
  });
  it('does not lead before reading up to its marker, without an epoch, or without the partition', () => {
    expect(leadsNow({ ...facts, caughtUp: false }, 10_500, 6_000)).toBe(false);
    expect(leadsNow({ ...facts, epoch: null }, 10_500, 6_000)).toBe(false);
    expect(leadsNow({ ...facts, holdsPartition: false }, 10_500, 6_000)).toBe(false);
  });
});

describe('ControlLogFold', () => {
  it('keeps the newest record per key and drops a key on its tombstone', () => {
    const f = new ControlLogFold();
    f.add(marker(0));
    f.add({ offset: 1, key: 'a', epoch: 0, value: 1 });
    f.add({ offset: 2, key: 'b', epoch: 0, value: 2 });
    f.add({ offset: 3, key: 'a', epoch: 0, value: 3 });
    f.add({ offset: 4, key: 'b', epoch: 0, value: null });
    expect(f.values('')).toEqual([3]);
  });
  it('ignores what a deposed leader wrote after a newer leader took over', () => {
    const f = new ControlLogFold();
    f.add(marker(0));
    f.add({ offset: 1, key: 'a', epoch: 0, value: 'old leader' });
    f.add(marker(2));
    f.add({ offset: 3, key: 'a', epoch: 0, value: 'late write of the old leader' });
    f.add({ offset: 4, key: 'b', epoch: 2, value: 'new leader' });
    expect(f.values('')).toEqual(['old leader', 'new leader']);
    expect(f.fenced).toBe(1);
    expect(f.fence).toBe(2);
  });
});

describe('replayedProgress', () => {
  it("gives the window states and the deliveries still pending of the earlier leaders' records", () => {
    const f = new ControlLogFold();
    f.add(marker(0));
    const state = { rule_id: 'r', key: '*', state: { status: 'firing', last_fired_at: 1, changed_at: 1 } };
    f.add({ offset: 1, key: stateRecordKey('r', '*'), epoch: 0, value: state });
    f.add({ offset: 2, key: deliveryRecordKey('d1'), epoch: 0, value: item('d1') });
    f.add({ offset: 3, key: deliveryRecordKey('d2'), epoch: 0, value: item('d2') });
    f.add({ offset: 4, key: deliveryRecordKey('d2'), epoch: 0, value: null });
    f.add({ offset: 5, key: deliveryRecordKey('d3'), epoch: 0, value: { not: 'an item' } });
    const p = replayedProgress(f);
    expect(p.states).toEqual([state]);
    expect(p.deliveries.map((d) => d.delivery_id)).toEqual(['d1']);
  });
});

describe('window firing ids', () => {
  it('are the same for the same rule, cohort, action and slot, and differ otherwise', () => {
    const id = windowFiringId('r1', '*', 'fire', 42);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(windowFiringId('r1', '*', 'fire', 42)).toBe(id);
    for (const other of [windowFiringId('r2', '*', 'fire', 42), windowFiringId('r1', 'model=m', 'fire', 42), windowFiringId('r1', '*', 'resolve', 42), windowFiringId('r1', '*', 'fire', 43)]) {
      expect(other).not.toBe(id);
    }
    expect(windowDeliveryId(id, 'w1')).toBe(windowDeliveryId(id, 'w1'));
    expect(windowDeliveryId(id, 'w1')).not.toBe(windowDeliveryId(id, 'w2'));
  });
});
