// A bounded list of the latest entries, newest first (recent rejections, recent dead letters):
// each call adds the first few of its entries, so one big batch does not push out all the others. Pure.

/** Puts the first `perCall` of `entries` (in their order) at the front of `list`, then keeps `max`. */
export function keepRecent<T>(list: T[], entries: readonly T[], max: number, perCall = 10): void {
  list.unshift(...entries.slice(0, perCall));
  if (list.length > max) list.length = max;
}
