// Mounting heavy parts one after another, a painted frame apart: the first shows without
// waiting for the rest, and the page answers input between them.
import { useEffect, useState } from 'react';

/**
 * How many of `count` parts to draw: 1 at first, then one more after each painted frame, up to
 * `count`. Only the first mount is staggered; the number never goes down.
 */
export function useStaggered(count: number): number {
  const [shown, setShown] = useState(1);
  useEffect(() => {
    if (shown >= count) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The frame callback runs before the next paint; the timeout, after it.
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setShown((n) => n + 1), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [shown, count]);
  return Math.min(shown, count);
}
