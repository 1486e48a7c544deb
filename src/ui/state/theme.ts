/**
 * Light or dark: the person's choice (kept in localStorage) or, until they choose, the system's
 * (prefers-color-scheme, followed live). styles.css keys its colours on <html data-theme>.
 */
import { useSyncExternalStore } from 'react';

export type Theme = 'light' | 'dark';
const KEY = 'rlvr-theme';
const listeners = new Set<() => void>();

function stored(): Theme | null {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : null;
  } catch {
    return null; // storage blocked (a private window): the system's theme, not remembered
  }
}

const systemDark = () => typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;

export function currentTheme(): Theme {
  return stored() ?? (systemDark() ? 'dark' : 'light');
}

function apply(): void {
  document.documentElement.dataset.theme = currentTheme();
  for (const l of listeners) l();
}

export function setTheme(t: Theme): void {
  try {
    localStorage.setItem(KEY, t);
  } catch {
    /* not remembered, still applied */
  }
  apply();
}

/** Sets the theme before the first paint and follows the system while nothing is chosen. */
export function initTheme(): void {
  apply();
  if (typeof matchMedia === 'function')
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => apply());
}

export function useTheme(): Theme {
  return useSyncExternalStore((cb) => {
    listeners.add(cb);
    return () => listeners.delete(cb);
  }, currentTheme);
}
