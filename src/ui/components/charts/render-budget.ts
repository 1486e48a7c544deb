/**
 * What keeps the page responsive while runs train: charts take new data at a bounded rate, and a
 * chart scrolled out of view keeps what it last drew until it is back in view. Events arrive in
 * batches every 100 ms per worker (workers/session-events.ts); redrawing a dozen recharts charts on
 * each batch of two or three workers is what used to freeze the tab.
 */
import { useEffect, useRef, useState, type RefObject } from 'react';

/** At most one chart redraw per this many ms while data streams in. */
export const CHART_UPDATE_MS = 1000;

/**
 * `value`, passed on at most once per `ms`: the first value at once, later ones when `ms` has passed
 * since the last one shown (the latest value wins; nothing is lost, only drawn later).
 */
export function useBoundedRate<T>(value: T, ms = CHART_UPDATE_MS): T {
  const [shown, setShown] = useState(value);
  const lastShown = useRef(0);
  useEffect(() => {
    if (Object.is(value, shown)) return;
    const wait = lastShown.current + ms - performance.now();
    const show = () => {
      lastShown.current = performance.now();
      setShown(() => value);
    };
    if (wait <= 0) {
      show();
      return;
    }
    const timer = setTimeout(show, wait);
    return () => clearTimeout(timer);
  }, [value, shown, ms]);
  return shown;
}

/** Whether the element is on screen (or within 200 px of it); true where IntersectionObserver is missing. */
export function useOnScreen(ref: RefObject<Element | null>): boolean {
  const [visible, setVisible] = useState(typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => setVisible(entries.some((e) => e.isIntersecting)), {
      rootMargin: '200px',
    });
    io.observe(el);
    return () => io.disconnect();
  }, [ref]);
  return visible;
}

/**
 * Chart redraws waiting for their turn: one per task, a short gap between them, so the page's other
 * work (a click, a scroll, the next event batch) gets in between two charts' redraws.
 */
const redraws: (() => void)[] = [];
// Whether the queue above is draining: the views' drawing schedule, not run state (module-state.test.ts allows it).
let pumping = false;
const REDRAW_GAP_MS = 16;

function pump(): void {
  const job = redraws.shift();
  if (!job) {
    pumping = false;
    return;
  }
  job();
  setTimeout(pump, REDRAW_GAP_MS);
}

function queueRedraw(job: () => void): () => void {
  redraws.push(job);
  if (!pumping) {
    pumping = true;
    setTimeout(pump, 0);
  }
  return () => {
    const i = redraws.indexOf(job);
    if (i >= 0) redraws.splice(i, 1);
  };
}

/**
 * The data a chart draws (`empty` at first): `value` once the chart's turn comes (charts redraw one at a time), and
 * only
 * while it is on screen; off screen it keeps the value it had when last on screen, so a memoised
 * chart skips its redraw until it is scrolled back into view.
 */
export function useChartData<T>(ref: RefObject<Element | null>, value: T, empty: T): T {
  const visible = useOnScreen(ref);
  // A chart mounts empty and draws on its turn: opening a view of a dozen charts is a dozen short tasks.
  const [shown, setShown] = useState(empty);
  useEffect(() => {
    if (!visible || Object.is(value, shown)) return;
    return queueRedraw(() => setShown(() => value));
  }, [visible, value, shown]);
  return shown;
}

/**
 * False until this chart's turn in the same queue, then true for good: a view of a dozen charts
 * mounts them one per task (each recharts mount is tens of ms) instead of in one long task.
 */
export function useMountTurn(): boolean {
  const [ready, setReady] = useState(false);
  useEffect(() => (ready ? undefined : queueRedraw(() => setReady(true))), [ready]);
  return ready;
}
