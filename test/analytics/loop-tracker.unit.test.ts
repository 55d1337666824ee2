import { describe, expect, it } from 'vitest';
import { detectLoops, LoopTracker, type Loop, type LoopEvent } from '../../analytics/loops/index.js';
import type { LoopThresholds } from '../../analytics/loops/loop-types.js';
import type { SignedStep } from '../../analytics/signed-step.js';
import { steps } from './step-sequences.js';

function feed(tracker: LoopTracker, seq: readonly SignedStep[]): { events: LoopEvent[]; pushedAt: number[] } {
  const events: LoopEvent[] = [];
  const pushedAt: number[] = [];
  for (const s of seq) {
    for (const e of tracker.push(s)) {
      events.push(e);
      pushedAt.push(s.step);
    }
  }
  for (const e of tracker.end()) {
    events.push(e);
    pushedAt.push(-1);
  }
  return { events, pushedAt };
}

const ended = (events: LoopEvent[]): Loop[] => events.filter((e) => e.type === 'loop_ended').map((e) => e.loop);

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random runs rich in loops: few distinct actions/observations, pasted loop blocks. */
function randomRun(rand: () => number, length: number): SignedStep[] {
  const pick = (n: number) => Math.floor(rand() * n);
  const tokens: string[] = [];
  while (tokens.length < length) {
    const r = rand();
    const error = rand() < 0.3 ? '!' : '';
    if (r < 0.5) {
      tokens.push(`${'ABCD'[pick(4)]}>${'xyz'[pick(3)]}${error}`);
    } else if (r < 0.7) {
      const block = Array.from({ length: 1 + pick(5) }, () => `${'ABCDE'[pick(5)]}>${'xy'[pick(2)]}`);
      const times = 1 + pick(4);
      for (let i = 0; i < times; i++) tokens.push(...block);
    } else {
      const obs = `${'xy'[pick(2)]}${error}`;
      const n = 2 + pick(9);
      for (let i = 0; i < n; i++) tokens.push(`${'ABCDEFG'[pick(7)]}>${obs}`);
    }
  }
  return steps(tokens.slice(0, length).join(' ')).map((s) => ({ ...s, tokens: pick(1000), cost_usd: rand() / 100 }));
}

describe('LoopTracker', () => {
  it('reports a loop by the push of the step that closes it, and its end later', () => {
    const tracker = new LoopTracker();
    const seq = steps('X A A A A B');
    expect(tracker.push(seq[0])).toEqual([]);
    expect(tracker.push(seq[1])).toEqual([]);
    expect(tracker.push(seq[2])).toEqual([]);
    const detected = tracker.push(seq[3]);
    expect(detected).toEqual([{ type: 'loop_detected', loop: expect.objectContaining({ kind: 'repeat', first_step: 1, last_step: 3 }) }]);
    expect(tracker.push(seq[4])).toEqual([]);
    expect(tracker.current).toMatchObject({ first_step: 1, last_step: 4 });
    expect(tracker.push(seq[5])).toEqual([
      { type: 'loop_ended', loop: expect.objectContaining({ kind: 'repeat', first_step: 1, last_step: 4, repetitions: 4 }) },
    ]);
    expect(tracker.end()).toEqual([]);
  });

  it('ends an open loop when the run ends', () => {
    const tracker = new LoopTracker();
    for (const s of steps('A>e! B>e! C>e!')) expect(tracker.push(s)).toEqual([]);
    expect(tracker.push(steps('D>e!', 3)[0])).toHaveLength(1);
    expect(tracker.end()).toEqual([{ type: 'loop_ended', loop: expect.objectContaining({ kind: 'stall', last_step: 3 }) }]);
  });

  it('ignores duplicate and late steps', () => {
    const tracker = new LoopTracker();
    const [a, b, c] = steps('A A A');
    tracker.push(a);
    tracker.push(b);
    expect(tracker.push(b)).toEqual([]);
    expect(tracker.push(a)).toEqual([]);
    expect(tracker.push(c)).toHaveLength(1);
  });

  it('keeps a bounded window however long the run', () => {
    const tracker = new LoopTracker();
    expect(tracker.capacity).toBeLessThanOrEqual(32);
    const { events } = feed(tracker, steps(Array.from({ length: 5000 }, (_, i) => (i % 1000 < 500 ? 'A' : `S${i}`)).join(' ')));
    expect(ended(events).map((l) => [l.first_step, l.last_step])).toEqual([
      [0, 499],
      [1000, 1499],
      [2000, 2499],
      [3000, 3499],
      [4000, 4499],
    ]);
  });

  const configs: Array<Partial<LoopThresholds>> = [
    {},
    { minRepeats: 4, stallErrorSteps: 3, stallSteps: 5 },
    { minCycleRepetitions: 2, maxCyclePeriod: 7 },
    { minRepeats: 6, stallErrorSteps: 3 },
  ];
  for (const [i, thresholds] of configs.entries()) {
    it(`gives exactly the batch loops on random runs (thresholds #${i})`, () => {
      const rand = random(1234 + i);
      let total = 0;
      for (let run = 0; run < 300; run++) {
        const seq = randomRun(rand, 1 + Math.floor(rand() * 120));
        const batch = detectLoops(seq, thresholds);
        const { events, pushedAt } = feed(new LoopTracker(thresholds), seq);
        expect(ended(events)).toEqual(batch);
        total += batch.length;
        // every loop is detected live by the push of a step inside it, before it ends
        const detected = events.filter((e) => e.type === 'loop_detected');
        expect(detected).toHaveLength(batch.length);
        events.forEach((e, k) => {
          if (e.type !== 'loop_detected') return;
          expect(pushedAt[k]).toBe(e.loop.last_step);
          const final = batch.find((l) => l.first_step === e.loop.first_step);
          expect(final?.kind).toBe(e.loop.kind);
          expect(e.loop.last_step).toBeLessThanOrEqual(final!.last_step);
        });
      }
      expect(total).toBeGreaterThan(100); // the generator really produces loops
    });
  }
});
