/**
 * "Look at" in a lesson: opens the view that charts a metric and scrolls its chart into view,
 * highlighted for a moment. Which chart holds a metric: the main charts' specs, else Compare's.
 */
import { chartSpecs } from './components/charts/specs.ts';
import { setState } from './store.ts';

function selectorFor(metric: string, compare: boolean): string {
  if (compare) return `[data-testid="compare-chart-${metric}"]`;
  if (metric === 'eval') return '[data-testid="chart-eval"]';
  const spec = chartSpecs.find((s) => s.lines.some((l) => l.key === metric));
  return spec
    ? `[data-testid="chart-${spec.id}"]`
    : `[data-testid="chart-lesson-${metric}"], [data-testid^="chart-"][data-metric="${metric}"]`;
}

export function showChart(metric: string, compare: boolean): void {
  setState({ view: compare ? 'compare' : 'charts' });
  const sel = selectorFor(metric, compare);
  const t0 = performance.now();
  // The view loads lazily: look for the chart for a little while.
  const look = () => {
    const el = document.querySelector<HTMLElement>(sel);
    if (!el) {
      if (performance.now() - t0 < 3000) requestAnimationFrame(look);
      return;
    }
    el.scrollIntoView({ block: 'center', behavior: 'smooth' });
    el.classList.add('flash');
    setTimeout(() => el.classList.remove('flash'), 1800);
  };
  requestAnimationFrame(look);
}
