import { useEffect, useRef } from 'react';
import { findLesson, metricTitle, verdictBody } from '../../derive/lesson-plan.ts';
import { closeLesson, runLessonLive } from '../../state/lessons.ts';
import { setState, useApp } from '../../state/store.ts';
import { shownLessonRecording } from '../../derive/shown-run.ts';

/** While a lesson is open: which one, where its runs are, what to look at. */
export function LessonBanner() {
  const lesson = findLesson(useApp((s) => s.lesson.active));
  const view = useApp((s) => s.view);
  const live = useApp((s) => !!s.lesson.live);
  const recorded = useApp(shownLessonRecording);
  const arms = useApp((s) => (recorded ? (s.recording?.arms ?? null) : null));
  const measured = useApp((s) => (lesson ? (s.lesson.measured?.[lesson.id] ?? null) : null));
  const overSeeds = useApp((s) =>
    recorded && s.compare.a.state === 'recorded' ? (s.compare.overSeeds ?? null) : null,
  );
  // Opened (or its verdict arrived): the banner and verdict come into view, wherever the page was scrolled.
  const ref = useRef<HTMLDivElement>(null);
  const shownKey = lesson ? `${lesson.id} ${live} ${!!recorded}` : null;
  useEffect(() => {
    if (shownKey) ref.current?.scrollIntoView({ block: 'start' });
  }, [shownKey]);
  if (!lesson) return null;
  // The verdict of the measurement these recordings come from (measured.json and the records are the same runs).
  const verdict = !live && recorded && measured ? lesson.verdict(measured) : null;
  const single = lesson.runs.length === 1;
  const home = single ? 'charts' : 'compare';
  return (
    <div
      ref={ref}
      className="banner info lesson-banner"
      role="status"
      data-testid="lesson-banner"
      data-lesson={lesson.id}
    >
      <strong>Lesson: {lesson.title}.</strong>{' '}
      {live
        ? single
          ? 'It trains as the main run.'
          : `Its ${Math.min(lesson.runs.length, 3)} runs train side by side in Compare.`
        : recorded
          ? overSeeds
            ? `Showing its recorded runs (${arms?.map((a, i) => `${'ABC'[i]} ${a.label}`).join(', ')}` +
              `); nothing trains until you press Run it live. ${overSeeds.text}`
            : arms
              ? `Showing its recorded runs (seed ${recorded.seed}: ` +
                `${arms.map((a, i) => `${'ABC'[i]} ${a.label}`).join(', ')}` +
                '); nothing trains until you press Run it live.'
              : `Showing its recorded run (${recorded.arm}, seed ${recorded.seed}); press Run it live to train it here.`
          : 'No recording of it ships with this build; press Run it live to train it here.'}{' '}
      {verdict && (
        <span
          className={`lesson-verdict ${verdict.shows ? 'shows' : 'not-shown'}`}
          data-testid="lesson-banner-verdict"
          data-shows={verdict.shows}
        >
          <strong>{verdict.shows ? 'The effect shows.' : 'The effect does not show here.'}</strong>{' '}
          {verdictBody(verdict)}{' '}
        </span>
      )}
      Look at:{' '}
      {lesson.lookAt.map((m, i) => (
        <span key={m}>
          {i > 0 && ', '}
          <em>{metricTitle(m)}</em>
        </span>
      ))}
      .{' '}
      <span className="actions inline">
        {!live && (
          <button type="button" className="primary" onClick={() => void runLessonLive()} data-testid="lesson-run-live">
            Run it live
          </button>
        )}
        {live && view !== home && (
          <button type="button" onClick={() => setState({ view: home })} data-testid="lesson-show-charts">
            Show its charts
          </button>
        )}
        {view !== 'lessons' && (
          <button type="button" onClick={() => setState({ view: 'lessons' })}>
            All lessons
          </button>
        )}
        <button type="button" onClick={closeLesson} data-testid="lesson-close">
          Close the lesson
        </button>
      </span>
    </div>
  );
}
