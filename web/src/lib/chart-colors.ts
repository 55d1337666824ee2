// Colours of categorical chart series (failure modes, models, tools). They are CSS variables
// (styles.css defines a light and a dark value for each), so charts follow the theme. Pure.

export const SERIES_COLORS = 12;

/** The i-th series colour; cycles after 12. */
export function seriesColor(i: number): string {
  return `var(--c-s${(((i % SERIES_COLORS) + SERIES_COLORS) % SERIES_COLORS) + 1})`;
}

/** One colour per key, by position in `keys` (give keys in a stable order: sorted or by size). */
export function colorMap(keys: readonly string[]): Map<string, string> {
  return new Map(keys.map((k, i) => [k, seriesColor(i)]));
}

/** Colour of "everything else" series: the neutral grey of the palette. */
export const OTHER_COLOR = 'var(--c-neutral-chart)';
