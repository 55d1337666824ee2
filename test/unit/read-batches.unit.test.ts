// How the analyzer splits the runs due for analysis into read-back batches.
import { describe, expect, it } from 'vitest';
import { planReadBatches } from '../../ingest/analysis/read-batches.js';

const ids = ['a', 'b', 'c', 'd', 'e'];

describe('planReadBatches', () => {
  it('keeps key order and bounds runs per batch', () => {
    expect(planReadBatches(ids, new Map(), 2, 1_000)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('bounds rows per batch, and reads a run longer than the bound alone', () => {
    const rows = new Map([['a', 40], ['b', 40], ['c', 500], ['d', 30], ['e', 80]]);
    expect(planReadBatches(ids, rows, 100, 100)).toEqual([['a', 'b'], ['c'], ['d'], ['e']]);
    expect(planReadBatches(ids, rows, 100, 120)).toEqual([['a', 'b'], ['c'], ['d', 'e']]);
  });

  it('counts runs without stored rows as empty and returns nothing for nothing', () => {
    expect(planReadBatches(['a', 'b'], new Map([['a', 10]]), 10, 10)).toEqual([['a', 'b']]);
    expect(planReadBatches([], new Map(), 10, 10)).toEqual([]);
  });
});
