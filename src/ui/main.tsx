import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { ErrorBoundary } from './components/ErrorBoundary.tsx';
import { boot, exposeTestHook } from './state/boot.ts';
import { initGuide } from './components/guide/Guide.tsx';
import { openLessonFromUrl } from './state/lessons.ts';
import { installRecordDrop, openRecordingFromUrl } from './state/recording.ts';
import { startOfflineSupport } from './state/offline-state.ts';
import { takePress } from './state/pending-press.ts';
import { start, stepOnce } from './state/controller.ts';
import { initTheme } from './state/theme.ts';
import { getState, setState } from './state/store.ts';
import { searchToSetup } from './derive/url-state.ts';
import { openServed } from './state/viewer-actions.ts';
import { syncViewerUrl } from './state/viewer-url.ts';
import './styles.css';

initTheme();
const linked = searchToSetup(location.search).page;
initGuide(linked.lesson !== null || linked.run !== null || linked.viewer.name !== null);
exposeTestHook();
installRecordDrop();
syncViewerUrl();
// Served by `rlvr view`: its runs are listed, and `?view=NAME&step=S` opens that run at that step. Such a
// link shows the viewer from the first paint (the charts' code is not fetched for it), and boot() below
// (shipped checkpoints, saved runs) and the service worker's install (it copies the app into the offline
// cache) wait until the run's first view is painted, so neither competes with it. `rlvr view` sends the
// isolation headers itself, so nothing there waits on the service worker.
const viewLink = searchToSetup(location.search).page.viewer.name !== null;
// A lesson or recording link waits for it too, where the page is already cross-origin isolated (the server
// sends the headers, as `npm start` does): the service worker then has no reload to make, only the copy.
const contentLink = (linked.lesson !== null || linked.run !== null) && globalThis.crossOriginIsolated === true;
if (!viewLink && !contentLink) startOfflineSupport();
const firstView = getState().view;
if (viewLink)
  setState((s) => ({
    view: 'viewer',
    viewer: { ...s.viewer, scrollToStep: searchToSetup(location.search).page.viewer.step !== null },
  }));
const served = openServed()
  .then((isServed) => {
    if (!isServed && viewLink && getState().view === 'viewer') setState({ view: firstView });
  })
  .catch(() => undefined);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ErrorBoundary where="the page">
      <App />
    </ErrorBoundary>
  </StrictMode>,
);
// ?lesson=ID opens once the checkpoint index is known (it picks the lesson task's checkpoint).
// A Start or Step once pressed before the service worker's isolation reload is honoured after it.
// ?run=URL opens that run record as a recording (the live run, restored by boot, is left as it is).
const painted = () => new Promise<void>((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
void (viewLink ? served.then(painted).then(startOfflineSupport) : Promise.resolve())
  .then(boot)
  .then(() => {
    const press = takePress();
    if (press === 'start') void start();
    else if (press === 'step-once') void stepOnce();
    return Promise.all([openLessonFromUrl(), openRecordingFromUrl()]);
  })
  .finally(() => {
    if (contentLink) void painted().then(startOfflineSupport);
  });
