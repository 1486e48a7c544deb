import { setTheme, useTheme } from '../state/theme.ts';

/** One button: switches between the light and the dark theme (remembered in this browser). */
export function ThemeToggle() {
  const theme = useTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      className="subtle theme-toggle"
      data-testid="theme-toggle"
      data-theme={theme}
      aria-label={`Switch to the ${next} theme`}
      title={`Switch to the ${next} theme`}
      onClick={() => setTheme(next)}
    >
      {theme === 'dark' ? '☀ Light' : '☾ Dark'}
    </button>
  );
}
