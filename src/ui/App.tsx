import { lazy, Suspense, useEffect, useState } from 'react';
import { Banners } from './components/Banners.tsx';
import { Controls } from './components/Controls.tsx';
import { ErrorBoundary } from './components/ErrorBoundary.tsx';
import { LessonBanner } from './components/lessons/LessonBanner.tsx';
import { RecordingBar } from './components/recording/RecordingBar.tsx';
import { SetupPanel } from './components/setup/SetupPanel.tsx';
import { StatusBar } from './components/StatusBar.tsx';
import { Tabs } from './components/Tabs.tsx';
import { ThemeToggle } from './components/ThemeToggle.tsx';
import { Guide } from './components/guide/Guide.tsx';
import type { BenchUrl } from './derive/bench-report.ts';
import { searchToSetup } from './derive/url-state.ts';
import { setState, useApp, type View } from './state/store.ts';
import { showsRecording } from './derive/shown-run.ts';

// Views below the fold load after the first screen (recharts is the heavy part).
const Charts = lazy(() => import('./components/charts/Charts.tsx'));
const RolloutInspector = lazy(() => import('./components/rollouts/RolloutInspector.tsx'));
const PassKExplorer = lazy(() => import('./components/PassKExplorer.tsx'));
const ComparePanel = lazy(() => import('./components/compare/ComparePanel.tsx'));
const SharePanel = lazy(() => import('./components/SharePanel.tsx'));
const LessonsGallery = lazy(() => import('./components/lessons/LessonsGallery.tsx'));
const BenchmarkPanel = lazy(() => import('./components/BenchmarkPanel.tsx'));
const TryPolicyPanel = lazy(() => import('./components/TryPolicyPanel.tsx'));
const DatasetPanel = lazy(() => import('./components/DatasetPanel.tsx'));
const RecordedPassK = lazy(() => import('./components/recording/RecordedPassK.tsx'));
const RunViewer = lazy(() => import('./components/viewer/RunViewer.tsx'));

export const views: { id: View; label: string }[] = [
  { id: 'lessons', label: 'Lessons' },
  { id: 'charts', label: 'Charts' },
  { id: 'rollouts', label: 'Rollouts' },
  { id: 'passk', label: 'pass@k' },
  { id: 'try', label: 'Try the policy' },
  { id: 'data', label: 'Your data' },
  { id: 'compare', label: 'Compare' },
  { id: 'viewer', label: 'Run viewer' },
  { id: 'share', label: 'Keep & share' },
  { id: 'bench', label: 'Benchmark this device' },
];

function CurrentView({ view, bench }: { view: View; bench: BenchUrl }) {
  const recording = useApp(showsRecording);
  switch (view) {
    case 'charts':
      return <Charts />;
    case 'rollouts':
      return <RolloutInspector />;
    case 'passk':
      return recording ? <RecordedPassK /> : <PassKExplorer />;
    case 'compare':
      return <ComparePanel />;
    case 'share':
      return <SharePanel />;
    case 'lessons':
      return <LessonsGallery />;
    case 'try':
      return <TryPolicyPanel />;
    case 'data':
      return <DatasetPanel />;
    case 'viewer':
      return <RunViewer />;
    case 'bench':
      return <BenchmarkPanel steps={bench.steps} note={bench.note} />;
  }
}

export function App() {
  const view = useApp((s) => s.view);
  const booted = useApp((s) => s.booted);
  // Once a run exists, the narrow layout puts the views (the charts) right under the controls.
  const started = useApp((s) => s.run.state !== 'idle');
  // Read once: the URL is rewritten when the setup changes, and that drops the bench keys.
  const [bench] = useState(() => searchToSetup(location.search).page.bench);
  useEffect(() => {
    // Time to the first screen (ms since navigation start), read by the e2e test.
    (window as unknown as { __rlvrFirstScreen?: number }).__rlvrFirstScreen ??= performance.now();
    if (bench.open) setState({ view: 'bench' });
  }, []);
  // DOM order = tab order and the narrow layout's order before a run (controls, guide, setup, views); once a run exists
  // the narrow layout shows the views right under the controls (styles.css).
  return (
    <div className="app">
      <header className="app-header">
        <div className="title-row">
          <h1>
            RLVR Playground <span className="subtitle">train a tiny policy with GRPO-family RL, live, in this tab</span>
          </h1>
          <ThemeToggle />
        </div>
        <StatusBar />
      </header>
      <Banners />
      <div className={`layout${started ? ' started' : ''}`} data-testid="layout">
        <div className="controls-area">
          <Controls />
        </div>
        <div className="guide-area">
          <Guide />
        </div>
        <aside className="setup" aria-label="Run setup">
          <ErrorBoundary where="the setup panel">
            {booted ? (
              <SetupPanel />
            ) : (
              <p className="muted" role="status" data-testid="setup-loading">
                Loading the shipped checkpoints and their defaults…
              </p>
            )}
          </ErrorBoundary>
        </aside>
        <main className="main">
          <RecordingBar />
          <LessonBanner />
          <Tabs views={views} />
          <section
            id={`view-${view}`}
            role="tabpanel"
            aria-labelledby={`tab-${view}`}
            className="view"
            data-testid={`view-${view}`}
          >
            <ErrorBoundary where={`the ${view} view`} key={view}>
              <Suspense fallback={<p className="muted">Loading…</p>}>
                <CurrentView view={view} bench={bench} />
              </Suspense>
            </ErrorBoundary>
          </section>
        </main>
      </div>
    </div>
  );
}
