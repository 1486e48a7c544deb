import { useEffect } from 'react';
import { lessons } from '../../../lessons/index.ts';
import { dismissLessonNotice, loadMeasured } from '../../state/lessons.ts';
import { patch, useApp } from '../../state/store.ts';
import { LessonCard } from './LessonCard.tsx';

/** The guided experiments: a card per lesson, opened from here or from `?lesson=ID`. */
export default function LessonsGallery() {
  const measured = useApp((s) => s.lesson.measured);
  const note = useApp((s) => s.lesson.measuredNote);
  const notice = useApp((s) => s.lesson.notice);
  const active = useApp((s) => s.lesson.active);
  const steps = useApp((s) => s.lesson.steps);
  const busy = useApp(
    (s) =>
      s.run.state === 'loading' ||
      s.compare.a.state === 'loading' ||
      s.compare.b.state === 'loading' ||
      s.compare.c?.state === 'loading',
  );
  useEffect(() => {
    void loadMeasured();
  }, []);
  return (
    <div className="lessons" data-testid="lessons-gallery">
      {notice && (
        <div className="inline-error lesson-notice" role="alert" data-testid="lesson-notice">
          <span>{notice}.</span>{' '}
          <button type="button" onClick={dismissLessonNotice}>
            Dismiss
          </button>
        </div>
      )}
      <p className="lessons-intro">
        Each lesson is a ready experiment from a paper: the paper’s claim, the configs that test it, and what to look
        at. <strong>Open</strong> shows the lesson’s recorded runs (their curves, its verdict and every recorded step’s
        rollouts); nothing trains until you press <em>Run it live</em> on the lesson’s banner, which trains them here —
        one run as the main run, two or three side by side in Compare — from the task’s shipped checkpoint on the same
        seed. Below each lesson is what this tiny model showed when the same runs were measured headlessly (
        <code>npx rlvr lesson run ID</code>); where the paper’s effect does not reproduce at this scale, that is what it
        says.
      </p>
      <div className="row lessons-toolbar">
        <label htmlFor="lesson-steps">Steps per run</label>
        <input
          id="lesson-steps"
          type="number"
          min={0}
          step={10}
          value={steps || ''}
          placeholder="each lesson’s own"
          data-testid="lesson-steps"
          onChange={(e) => patch('lesson', { steps: Math.max(0, Math.floor(Number(e.target.value) || 0)) })}
        />
        <span className="help">empty: the lesson’s own budget (what was measured); fewer steps for a quick look</span>
      </div>
      {note && (
        <p className="note warn" data-testid="measured-note">
          {note}
        </p>
      )}
      <div className="lesson-grid">
        {lessons.map((l) => (
          <LessonCard
            key={l.id}
            lesson={l}
            measured={measured === null ? undefined : (measured[l.id] ?? null)}
            active={active === l.id}
            steps={steps}
            busy={busy}
          />
        ))}
      </div>
    </div>
  );
}
