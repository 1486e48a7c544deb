import { useEffect, useRef, useState } from 'react';
import {
  compareWithLive,
  dismissRecordingError,
  openRecordFile,
  scrubBy,
  scrubTo,
  showLive,
  showRecording,
} from '../../state/recording.ts';
import {
  addRecordingToCompare,
  inspectArm,
  loadShippedRecords,
  openShippedRecord,
  type ShippedRecord,
} from '../../state/recorded-arms.ts';
import { prewarmRecordReader } from '../../state/recording-read.ts';
import { continueFromRecording } from '../../state/recording-continue.ts';
import { closeRecordingOrLesson } from '../../state/lessons.ts';
import { useApp } from '../../state/store.ts';
import { searchToSetup } from '../../derive/url-state.ts';

/**
 * The shipped list in groups: the runs, then each lesson's records (every arm on every seed) under the lesson's name.
 */
function shippedGroups(shipped: ShippedRecord[]): { label: string; items: { r: ShippedRecord; i: number }[] }[] {
  const groups = new Map<string, { label: string; items: { r: ShippedRecord; i: number }[] }>();
  shipped.forEach((r, i) => {
    const key = r.lesson ? `lesson:${r.lesson.id}` : 'runs';
    const label = r.lesson ? (r.title.split(' — ')[0] ?? r.title) : 'Training runs';
    (groups.get(key) ?? groups.set(key, { label, items: [] }).get(key)!).items.push({ r, i });
  });
  return [...groups.values()];
}

/** Opens a recording: a file picker (drops anywhere on the page do the same) and the shipped list. */
function RecordingOpener() {
  const [shipped, setShipped] = useState<ShippedRecord[]>([]);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    void loadShippedRecords().then(setShipped);
    // Once the page has settled: the next open then finds its reader running. Not for a run viewer link
    // (`?view=`): three workers starting would compete with the run's first view; an open starts its own.
    if (searchToSetup(location.search).page.viewer.name !== null) return;
    const t = setTimeout(prewarmRecordReader, 1500);
    return () => clearTimeout(t);
  }, []);
  return (
    <span className="recording-opener" data-testid="recording-opener">
      <button type="button" onClick={() => input.current?.click()} data-testid="open-recording">
        Open a recorded run…
      </button>
      <input
        ref={input}
        type="file"
        accept=".gz,application/gzip"
        hidden
        data-testid="recording-file"
        aria-label="Open a recorded run (a .rlvr.gz file)"
        onChange={(e) => {
          const f = e.target.files?.[0];
          e.target.value = '';
          if (f) void openRecordFile(f);
        }}
      />
      {shipped.length > 0 && (
        <select
          aria-label="Open a shipped recording"
          data-testid="shipped-recordings"
          value=""
          onChange={(e) => {
            const r = shipped[Number(e.target.value)];
            if (r) void openShippedRecord(r);
          }}
        >
          <option value="">Shipped recordings…</option>
          {shippedGroups(shipped).map((g) => (
            <optgroup key={g.label} label={g.label}>
              {g.items.map(({ r, i }) => (
                <option key={r.file} value={i}>
                  {r.title}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      )}
      <span className="muted small"> or drop a .rlvr.gz file on the page</span>
    </span>
  );
}

/** The step scrubber: a range over the recorded steps; arrow keys move it one recorded step. */
function Scrubber() {
  const rec = useApp((s) => s.recording)!;
  const i = Math.max(0, rec.steps.indexOf(rec.series.step));
  const last = rec.steps[rec.steps.length - 1] ?? 0;
  return (
    <div
      className="recording-scrubber"
      role="toolbar"
      aria-label="Recording steps"
      onKeyDown={(e) => {
        // The range input moves itself with the arrows; the buttons and the rest of the bar do it here.
        if (e.target instanceof HTMLInputElement) return;
        if (e.key === 'ArrowLeft') scrubBy(-1);
        else if (e.key === 'ArrowRight') scrubBy(1);
      }}
    >
      <button type="button" aria-label="One recorded step back" onClick={() => scrubBy(-1)} disabled={i === 0}>
        ◀
      </button>
      <label htmlFor="recording-step">Step</label>
      <input
        id="recording-step"
        type="range"
        min={0}
        max={Math.max(0, rec.steps.length - 1)}
        step={1}
        value={i}
        data-testid="recording-scrubber"
        aria-valuetext={`step ${rec.series.step} of ${last}`}
        onChange={(e) => scrubTo(rec.steps[Number(e.target.value)] ?? 0)}
      />
      <button
        type="button"
        aria-label="One recorded step forward"
        onClick={() => scrubBy(1)}
        disabled={i >= rec.steps.length - 1}
      >
        ▶
      </button>
      <output htmlFor="recording-step" data-testid="recording-step">
        step {rec.series.step} of {last}
      </output>
    </div>
  );
}

/**
 * Above the tabs: the opener, and while a recording is open the banner that says so in words, with
 * the scrubber. Errors name the file and what is wrong with it; the live run is never touched.
 */
export function RecordingBar() {
  const rec = useApp((s) => s.recording);
  const load = useApp((s) => s.recordingLoad);
  const liveState = useApp((s) => s.run.state);
  const p = rec?.record.provenance;
  return (
    <div className="recording-bar">
      {rec?.showing && p && (
        <div
          className="banner info recording-banner"
          role="status"
          data-testid="recording-banner"
          data-steps={rec.steps.length}
        >
          <p>
            <strong>Showing a recorded run</strong> — a recording, not training: {rec.name}.{' '}
            {p.lesson ? `Lesson ${p.lesson.id}, ${p.lesson.arm}, seed ${p.lesson.seed}; ` : ''}
            {rec.record.config.task} from {p.base.name}, seed {rec.record.config.seed}, {rec.record.steps.length}{' '}
            recorded steps, written by <code>{p.writer}</code> on {p.created.slice(0, 10)}.
            {liveState !== 'idle' && ' Your live run is kept as it is.'}
          </p>
          {p.note && <p className="muted small">{p.note}</p>}
          {rec.notes.map((n) => (
            <p key={n} className="muted small">
              {n}
            </p>
          ))}
          <Scrubber />
          {rec.arms && (
            <p
              className="actions inline"
              role="group"
              aria-label="Whose steps the scrubber, rollouts and pass@k show"
              data-testid="recording-arms"
            >
              Compare draws {rec.arms.length} recordings side by side. The scrubber, rollouts and pass@k show:{' '}
              {rec.arms.map((a, i) => (
                <button
                  key={a.name}
                  type="button"
                  aria-pressed={a.name === rec.name}
                  onClick={() => inspectArm(a.label)}
                  data-testid={`recording-arm-${i}`}
                >
                  {'ABC'[i]}: {a.label}
                </button>
              ))}
            </p>
          )}
          {rec.record.checkpoints.length > 0 && !rec.record.checkpoints.some((c) => c.step === rec.series.step) && (
            <p className="muted small" data-testid="recording-checkpoints">
              Weights were recorded after step{rec.record.checkpoints.length === 1 ? '' : 's'}{' '}
              {rec.record.checkpoints.map((c) => c.step).join(', ')}: move the scrubber there to continue training from
              them.
            </p>
          )}
          <span className="actions inline">
            {rec.record.checkpoints.some((c) => c.step === rec.series.step) && (
              <button
                type="button"
                className="primary"
                onClick={() => void continueFromRecording()}
                data-testid="recording-continue"
                title="A new run from the weights recorded at this step, with the recording's config"
              >
                Continue training from here
              </button>
            )}
            {!rec.arms && (
              <button type="button" onClick={compareWithLive} data-testid="recording-compare">
                Compare with a live run
              </button>
            )}
            {!rec.arms?.some((a) => a.name === rec.name) && (
              <button
                type="button"
                onClick={addRecordingToCompare}
                data-testid="recording-add-compare"
                title={
                  'Draw this recording in Compare beside other ' +
                  'recordings (up to three): open another and add it ' +
                  'too'
                }
              >
                Add to Compare
              </button>
            )}
            <button type="button" onClick={showLive} data-testid="recording-show-live">
              Back to the live run
            </button>
            <button type="button" onClick={closeRecordingOrLesson} data-testid="recording-close">
              Close the recording
            </button>
          </span>
        </div>
      )}
      {rec && !rec.showing && (
        <p className="muted small" data-testid="recording-hidden">
          A recorded run is open ({rec.name}).{' '}
          <button type="button" onClick={showRecording} data-testid="recording-show">
            Show the recording
          </button>
        </p>
      )}
      {load.loading && (
        <p className="muted" role="status" data-testid="recording-loading">
          Reading the recording {load.loading}…
        </p>
      )}
      {load.error && (
        <div className="banner error" role="alert" data-testid="recording-error">
          <span>{load.error}</span>{' '}
          <button type="button" onClick={dismissRecordingError}>
            Dismiss
          </button>
        </div>
      )}
      <RecordingOpener />
    </div>
  );
}
