// Light and dark themes: the stored choice, resolved against the system preference. Pure.

export type Theme = 'light' | 'dark';
/** What the person picked; 'system' follows prefers-color-scheme. */
export type ThemeChoice = Theme | 'system';

export const THEME_STORAGE_KEY = 'trajscope-theme';

/** A stored value back to a choice; anything unknown means "follow the system". */
export function parseThemeChoice(stored: string | null | undefined): ThemeChoice {
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

export function resolveTheme(choice: ThemeChoice, systemPrefersDark: boolean): Theme {
  if (choice === 'system') return systemPrefersDark ? 'dark' : 'light';
  return choice;
}

/** The toggle flips the theme in view; the result is stored, so it sticks across visits. */
export function toggledTheme(current: Theme): Theme {
  return current === 'dark' ? 'light' : 'dark';
}
