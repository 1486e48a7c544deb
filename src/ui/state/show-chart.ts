/**
 * "Look at" in a lesson: opens the view that charts a metric and asks for its chart; the chart that
 * draws it (components/charts/chart-focus.ts) scrolls itself into view, highlighted for a moment.
 */
import { setState } from './store.ts';

export function showChart(metric: string, compare: boolean): void {
  setState({ view: compare ? 'compare' : 'charts', chartFocus: { metric, compare } });
}
