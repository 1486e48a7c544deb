import { useDeferredValue } from 'react';
import { presets } from '../../../rl/presets.ts';
import {
  checkB,
  compareEstimate,
  compareProgress,
  compareVerdict,
  evaluateBoth,
  pauseCompare,
  startCompare,
  stopCompare,
} from '../../state/compare.ts';
import { draftValidation } from '../../state/setup-state.ts';
import { findLesson } from '../../derive/lesson-plan.ts';
import { patch, useApp } from '../../state/store.ts';
import { CompareCharts, useChartSides } from './CompareCharts.tsx';

/** Two configs on the same seed, side by side: overlaid charts and the list of differences. */
export default function ComparePanel() {
  const c = useApp((s) => s.compare);
  const chartSides = useChartSides();
  const estimate = useApp((s) => compareEstimate(s));
  const progress = compareProgress(c);
  const progressPct = progress ? Math.floor(100 * progress.fraction) : 0;
  const smoothing = useDeferredValue(useApp((s) => s.smoothing));
  const presetA = useApp((s) => s.setup.draft.presetId);
  const invalid = useApp((s) => Object.keys(draftValidation(s).errors).length > 0);
  const lesson = findLesson(useApp((s) => s.lesson.active));
  // An open lesson with two or three runs trains here: its charts come first, highlighted.
  const focus = lesson && lesson.runs.length > 1 ? lesson.lookAt : [];
  const sides = c.c ? [c.a, c.b, c.c] : [c.a, c.b];
  // Checked as typed: every error in B's overrides at once, each naming its field.
  const bErrors = useApp((s) => checkB(s).errors.join('\n'));
  const patchErrors = bErrors ? bErrors.split('\n') : [];
  const patchError = patchErrors.length > 0;
  const verdict = compareVerdict(c);
  const haveWorkers = c.a.state !== 'idle' && c.b.state !== 'idle' && !c.a.error && !c.b.error && c.a.config !== null;
  // A lesson's recorded arms: every side is a recording; "Run it live" (the lesson banner) trains them.
  const allRecorded = c.a.state === 'recorded';
  const charts = (
    <CompareCharts focus={focus} lessonTitle={lesson?.title ?? ''} sides={chartSides} smoothing={smoothing} />
  );
  return (
    <div className="compare">
      {allRecorded && (
        <p className="banner info" data-testid="compare-all-recorded">
          <strong>Recorded runs</strong>: {sides.map((s, i) => `${'ABC'[i]} ${s.label}`).join(', ')},{' '}
          {c.overSeeds && !c.overSeeds.pending
            ? `the mean over seeds ${c.overSeeds.seeds.join(', ')} (each seed a faint line)`
            : `seed ${c.a.config?.seed}`}
          , {c.steps} steps each. Nothing trains here; the curves and the held-out evaluations are the recorded ones.
          Press <em>Run it live</em> to train the same runs in this tab, or move the scrubber above to see any recorded
          step’s rollouts.
        </p>
      )}
      {/* A lesson's recordings: their charts come first, on the first screen; the form to train others below. */}
      {allRecorded && charts}
      <p>
        Trains two runs at once, each in its own worker, from the same checkpoint and seed (so the same prompts): A is
        the setup on the left (preset <code>{presetA}</code>), B the same setup with another preset and your overrides.
        Both share this machine’s cores, so each runs at about half speed.
        {c.c && c.c.state !== 'recorded' && (
          <>
            {' '}
            <strong>C</strong> ({c.c.label}) is the lesson’s third run: it has no form here; “Run both” runs A and B
            only.
          </>
        )}
        {c.c?.state === 'recorded' && (
          <span data-testid="compare-recorded">
            {' '}
            <strong>C</strong> is a recorded run ({c.c.label}
            {c.c.config ? `, seed ${c.c.config.seed}` : ''}): it does not train; “Run both” trains{' '}
            <span>A and B beside it</span>.{' '}
            <button type="button" className="link" onClick={() => patch('compare', { c: null })}>
              Remove it
            </button>
          </span>
        )}
      </p>
      <div className="row wrap">
        <div className="field">
          <label htmlFor="preset-b">B preset</label>
          <select
            id="preset-b"
            value={c.presetB}
            data-testid="compare-preset-b"
            onChange={(e) => patch('compare', { presetB: e.target.value })}
          >
            {presets.map((p) => (
              <option key={p.id} value={p.id}>
                {p.title}
              </option>
            ))}
          </select>
        </div>
        <div className="field grow">
          <label htmlFor="edits-b">B overrides (key=value, one per line or comma-separated)</label>
          <textarea
            id="edits-b"
            rows={2}
            value={c.editsB}
            placeholder="epsilon_high=0.28"
            data-testid="compare-edits-b"
            onChange={(e) => patch('compare', { editsB: e.target.value })}
          />
          {patchError && (
            <ul className="inline-error" role="alert" data-testid="compare-edits-errors">
              {patchErrors.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          )}
        </div>
        <div className="field">
          <label htmlFor="compare-steps">Steps</label>
          <input
            id="compare-steps"
            type="number"
            min={1}
            value={c.steps}
            onChange={(e) => patch('compare', { steps: Math.max(1, Math.floor(Number(e.target.value) || 1)) })}
          />
        </div>
      </div>
      <div className="row">
        <button
          type="button"
          className="primary"
          data-testid="compare-start"
          disabled={c.running || invalid || patchError || allRecorded}
          title={allRecorded ? 'These are recordings: the lesson banner’s Run it live trains them' : undefined}
          onClick={() => void startCompare()}
        >
          Run both
        </button>
        <button type="button" disabled={!c.running} onClick={() => void pauseCompare()}>
          {c.c ? 'Pause all' : 'Pause both'}
        </button>
        <button type="button" onClick={() => stopCompare()}>
          Stop and free the workers
        </button>
        {estimate && (
          <span className="note muted" data-testid="compare-estimate">
            {estimate}
          </span>
        )}
        <span className="muted" data-testid="compare-status">
          {sides.map((s, i) => `${'ABC'[i]}: ${s.state} step ${s.step}`).join(' · ')}
        </span>
      </div>
      {progress && (
        <p className="wait-line" role="status" data-testid="compare-progress" data-percent={progressPct}>
          <progress max={100} value={progressPct} aria-hidden="true" /> {progressPct}%: {progress.doing}
          {estimate ? ` · ${estimate}` : ''}{' '}
          <button type="button" data-testid="compare-cancel" onClick={() => stopCompare()}>
            Cancel
          </button>
        </p>
      )}
      <div className="row compare-verdict">
        <button
          type="button"
          data-testid="compare-evaluate"
          disabled={!haveWorkers || !!c.evaluating}
          aria-busy={!!c.evaluating}
          onClick={() => void evaluateBoth()}
        >
          {c.evaluating ? 'Evaluating…' : 'Evaluate both now (held-out pass@1)'}
        </button>
        <span data-testid="compare-verdict" data-significant={verdict ? String(verdict.significant) : undefined}>
          {verdict
            ? verdict.text
            : 'The verdict appears when both runs have a held-out ' +
              'evaluation after training (at the end of the steps ' +
              'when eval_every > 0, or on demand).'}
        </span>
      </div>
      {sides.map(
        (s) =>
          s.error && (
            <p key={s.label} className="inline-error" role="alert">
              {s.label}: {s.error}
            </p>
          ),
      )}
      {c.diff.length > 0 && (
        <table className="diff" data-testid="compare-diff">
          <caption>Config differences</caption>
          <thead>
            <tr>
              <th scope="col">field</th>
              {sides.map((_s, i) => (
                <th scope="col" key={i}>
                  {'ABC'[i]}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {c.diff.map(([k, ...values]) => (
              <tr key={k}>
                <th scope="row">
                  <code>{k}</code>
                </th>
                {values.map((v, i) => (
                  <td key={i}>{v}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {!allRecorded && charts}
    </div>
  );
}
