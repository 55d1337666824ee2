import { describe, expect, it } from 'vitest';
import { detectCycles, detectLoops, detectRepeats, detectStalls } from '../../analytics/loops/index.js';
import { steps } from './step-sequences.js';

const spans = (loops: { kind: string; first_step: number; last_step: number }[]) =>
  loops.map((l) => `${l.kind}:${l.first_step}-${l.last_step}`);

describe('repeat', () => {
  it('finds exactly three identical steps in a row', () => {
    const loops = detectRepeats(steps('X A A A Y'));
    expect(loops).toEqual([
      { kind: 'repeat', first_step: 1, last_step: 3, period: 1, repetitions: 3, tokens: 300, cost_usd: 0.03 },
    ]);
  });

  it('ignores two in a row, or three broken once', () => {
    expect(detectLoops(steps('A A B A A C A A'))).toEqual([]);
  });

  it('extends while the same step goes on', () => {
    expect(spans(detectLoops(steps('A A A A A A B')))).toEqual(['repeat:0-5']);
    expect(detectLoops(steps('A A A A A A B'))[0].repetitions).toBe(6);
  });

  it('needs the same observation: polling that gets new answers is not a loop', () => {
    expect(detectLoops(steps('poll>10% poll>35% poll>60% poll>85% poll>100%'))).toEqual([]);
    expect(spans(detectLoops(steps('poll>pending poll>pending poll>pending poll>done')))).toEqual(['repeat:0-2']);
  });

  it('reports separate runs separately', () => {
    expect(spans(detectLoops(steps('A A A B C C C')))).toEqual(['repeat:0-2', 'repeat:4-6']);
  });

  it('honours a configured threshold', () => {
    expect(detectRepeats(steps('A A A A'), { minRepeats: 5 })).toEqual([]);
    expect(spans(detectRepeats(steps('A A A A A'), { minRepeats: 5 }))).toEqual(['repeat:0-4']);
  });
});

describe('cycle', () => {
  it('finds a period-2 cycle repeated three times', () => {
    const loops = detectCycles(steps('X A B A B A B Y'));
    expect(loops).toEqual([
      { kind: 'cycle', first_step: 1, last_step: 6, period: 2, repetitions: 3, tokens: 600, cost_usd: 0.060000000000000005 },
    ]);
  });

  it('ignores two repetitions and a cycle broken once', () => {
    expect(detectLoops(steps('A B A B C'))).toEqual([]);
    expect(detectLoops(steps('A B A B C A B A B'))).toEqual([]);
  });

  it('finds periods 3 to 5 and not 6', () => {
    expect(detectLoops(steps('A B C A B C A B C'))[0]).toMatchObject({ kind: 'cycle', period: 3, repetitions: 3 });
    expect(detectLoops(steps('A B C D A B C D A B C D'))[0]).toMatchObject({ period: 4 });
    expect(detectLoops(steps('A B C D E A B C D E A B C D E'))[0]).toMatchObject({ period: 5, first_step: 0, last_step: 14 });
    expect(detectLoops(steps('A B C D E F A B C D E F A B C D E F'))).toEqual([]);
  });

  it('takes the shortest period and counts whole repetitions only', () => {
    const [loop] = detectLoops(steps('A B A B A B A B A C'));
    expect(loop).toMatchObject({ kind: 'cycle', period: 2, repetitions: 4, first_step: 0, last_step: 7 });
  });

  it('does not call a repeat a cycle', () => {
    expect(detectCycles(steps('A A A A A A'))).toEqual([]);
    expect(detectLoops(steps('A A A A A A'))[0].kind).toBe('repeat');
  });

  it('compares whole steps: the same actions with changing results are no cycle', () => {
    expect(detectLoops(steps('ls>1 cat>1 ls>2 cat>2 ls>3 cat>3'))).toEqual([]);
  });
});

describe('stall', () => {
  it('needs 4 steps for an error observation', () => {
    expect(detectStalls(steps('A>e! B>e! C>e!'))).toEqual([]);
    expect(detectStalls(steps('A>e! B>e! C>e! D>e!'))).toEqual([
      { kind: 'stall', first_step: 0, last_step: 3, period: 1, repetitions: 4, tokens: 400, cost_usd: 0.04 },
    ]);
  });

  it('needs 8 steps for a non-error observation', () => {
    expect(detectLoops(steps('A>x B>x C>x D>x E>x F>x G>x'))).toEqual([]);
    expect(spans(detectLoops(steps('A>x B>x C>x D>x E>x F>x G>x H>x I>y')))).toEqual(['stall:0-7']);
  });

  it('does not mix error and non-error observations', () => {
    expect(detectLoops(steps('A>e! B>e C>e! D>e'))).toEqual([]);
  });

  it('goes on while the observation stays the same', () => {
    expect(spans(detectLoops(steps('Z A>e! B>e! C>e! D>e! E>e! F>ok')))).toEqual(['stall:1-5']);
  });
});

describe('detectLoops', () => {
  it('lets a repeat that closes first win over a stall', () => {
    // A A A closes as a repeat at step 2, before four equal errors close a stall at step 3.
    expect(spans(detectLoops(steps('A>e! A>e! A>e! B>e! C>e!')))).toEqual(['repeat:0-2']);
  });

  it('lets an error stall that closes first win over a cycle', () => {
    expect(spans(detectLoops(steps('A>e! B>e! A>e! B>e! A>e! B>e!')))).toEqual(['stall:0-5']);
  });

  it('reports non-overlapping loops in step order', () => {
    const loops = detectLoops(steps('A A A B C B C B C D>e! E>e! F>e! G>e!'));
    expect(spans(loops)).toEqual(['repeat:0-2', 'cycle:3-8', 'stall:9-12']);
  });

  it('re-scans the partial tail of a cycle', () => {
    // period-3 block "A A B": after three blocks the tail "A A" plus another A is a repeat.
    const loops = detectLoops(steps('X A A B A A B A A B A A A'));
    expect(spans(loops)).toEqual(['cycle:1-9', 'repeat:10-12']);
  });

  it('uses step indices and takes steps in order, once each', () => {
    const s = steps('A A A', 10);
    expect(spans(detectLoops([s[2], s[0], s[1], s[0]]))).toEqual(['repeat:10-12']);
  });

  it('finds nothing in an empty or short run', () => {
    expect(detectLoops([])).toEqual([]);
    expect(detectLoops(steps('A'))).toEqual([]);
  });

  it('rejects nonsense thresholds', () => {
    expect(() => detectLoops([], { minRepeats: 1 })).toThrow(RangeError);
    expect(() => detectLoops([], { minCyclePeriod: 4, maxCyclePeriod: 3 })).toThrow(RangeError);
  });
});
