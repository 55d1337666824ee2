// The theme in use: the stored choice (localStorage) or the system's, written to
// <html data-theme> so the CSS variables of styles.css switch. index.html sets it before the
// first paint, so there is no flash of the wrong theme.
import { useCallback, useEffect, useState } from 'react';
import { parseThemeChoice, resolveTheme, THEME_STORAGE_KEY, toggledTheme, type Theme, type ThemeChoice } from '../lib/theme.js';

function readChoice(): ThemeChoice {
  try {
    return parseThemeChoice(localStorage.getItem(THEME_STORAGE_KEY));
  } catch {
    return 'system';
  }
}

const darkQuery = () => window.matchMedia?.('(prefers-color-scheme: dark)');

export function useTheme(): { theme: Theme; toggle: () => void } {
  const [choice, setChoice] = useState<ThemeChoice>(readChoice);
  const [systemDark, setSystemDark] = useState<boolean>(() => darkQuery()?.matches ?? false);
  const theme = resolveTheme(choice, systemDark);

  useEffect(() => {
    const q = darkQuery();
    if (!q) return;
    const onChange = (e: MediaQueryListEvent) => setSystemDark(e.matches);
    q.addEventListener('change', onChange);
    return () => q.removeEventListener('change', onChange);
  }, []);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);

  const toggle = useCallback(() => {
    const next = toggledTheme(theme);
    try {
      localStorage.setItem(THEME_STORAGE_KEY, next);
    } catch {
      // Private mode: the choice lasts for this page only.
    }
    setChoice(next);
  }, [theme]);

  return { theme, toggle };
}
