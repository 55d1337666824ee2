// The Errors page's pure parts (web/src/lib/errors-view.ts).
import { describe, expect, it } from 'vitest';
import { failedShare, templatePieces, trendHeights } from '../../web/src/lib/errors-view.js';

describe('errors view', () => {
  it('cuts a template into text and its masked parts', () => {
    expect(templatePieces('Error: flight <n> not available on date <time>')).toEqual([
      { text: 'Error: flight ', placeholder: false },
      { text: '<n>', placeholder: true },
      { text: ' not available on date ', placeholder: false },
      { text: '<time>', placeholder: true },
    ]);
    expect(templatePieces("KeyError: '<*>'").map((p) => p.placeholder)).toEqual([false, true, false]);
    // Only the miner's placeholders: other angle brackets are text.
    expect(templatePieces('<module> <n>')).toEqual([{ text: '<module> ', placeholder: false }, { text: '<n>', placeholder: true }]);
  });

  it('gives the failed share and the trend relative to its highest bar', () => {
    expect(failedShare({ runs: 4, failed_runs: 3 })).toBe(0.75);
    expect(failedShare({ runs: 0, failed_runs: 0 })).toBeNull();
    expect(trendHeights([0, 2, 4])).toEqual([0, 0.5, 1]);
    expect(trendHeights([0, 0])).toEqual([0, 0]);
  });
});
