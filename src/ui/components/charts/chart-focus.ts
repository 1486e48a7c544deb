import { type RefObject, useEffect } from 'react';
import { getState, setState, useApp } from '../../state/store.ts';

/** How long an asked-for chart stays highlighted (the `flash` class in styles.css). */
const FLASH_MS = 1800;

/**
 * The chart at `ref`, which draws `metrics` (in Compare when `compare`), answers a request for one of
 * them (show-chart.ts): it scrolls into view, flashes, and clears the request so that it is answered
 * once, by the first chart mounted that draws the metric (the views load lazily: it may mount after).
 */
export function useChartFocus(ref: RefObject<HTMLElement | null>, metrics: readonly string[], compare: boolean): void {
  const focus = useApp((s) => s.chartFocus);
  const mine = !!focus && focus.compare === compare && metrics.includes(focus.metric);
  useEffect(() => {
    const el = ref.current;
    if (!mine || !el || getState().chartFocus !== focus) return;
    setState({ chartFocus: null });
    el.scrollIntoView({ block: 'center', behavior: 'smooth' });
    el.classList.add('flash');
    setTimeout(() => el.classList.remove('flash'), FLASH_MS);
  }, [mine, focus, ref]);
}
