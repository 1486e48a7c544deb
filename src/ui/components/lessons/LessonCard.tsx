import { lessonSeeds, type Lesson, type MeasuredLesson } from '../../../lessons/index.ts';
import { MAX_LESSON_RUNS, metricTitle, SIDE_NAMES } from '../../derive/lesson-plan.ts';
import { openLesson } from '../../state/lessons.ts';
import { lessonEstimate } from '../../state/pace.ts';
import { useApp } from '../../state/store.ts';
import { showChart } from '../../state/show-chart.ts';
import { MeasuredOutcome } from './MeasuredOutcome.tsx';

const configText = (c: Record<string, unknown>) =>
  Object.entries(c)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');

/** One lesson: the paper's claim, the experiment, what to look at, the measured outcome, and Open. */
export function LessonCard({
  lesson,
  measured,
  active,
  steps,
  busy,
}: {
  lesson: Lesson;
  measured: MeasuredLesson | null | undefined;
  active: boolean;
  steps: number;
  busy: boolean;
}) {
  const n = lesson.runs.length;
  const shown = Math.min(n, MAX_LESSON_RUNS);
  const headingId = `lesson-title-${lesson.id}`;
  // Its runs side by side, from this device's measured pace.
  const estimate = useApp((s) => lessonEstimate(lesson, steps, s));
  return (
    <article
      className={`lesson-card${active ? ' active' : ''}`}
      data-testid={`lesson-${lesson.id}`}
      aria-labelledby={headingId}
    >
      <header>
        <h3 id={headingId}>{lesson.title}</h3>
        <span className="paper">{lesson.paper}</span>
      </header>
      <div className="lesson-claim">
        <h4>What the paper reported</h4>
        <p data-testid={`lesson-claim-${lesson.id}`}>{lesson.claim}</p>
      </div>
      <p className="lesson-text">{lesson.text}</p>
      <div className="lesson-runs">
        <h4>
          The experiment: {n === 1 ? 'one run' : `${n} runs side by side`} on <code>{lesson.task}</code>,{' '}
          {steps > 0 ? steps : lesson.steps} steps each{n > 1 ? ', the runs sharing a seed' : ''}; the result below is
          measured on seeds {lessonSeeds(lesson).join(', ')}
        </h4>
        <ul>
          {lesson.runs.map((r, i) => (
            <li key={r.label}>
              {n > 1 && <strong>{SIDE_NAMES[i] ?? '—'}: </strong>}
              {r.label} — preset <code>{r.preset}</code>
              {Object.keys(r.config).length > 0 && (
                <>
                  {' '}
                  + <code>{configText(r.config)}</code>
                </>
              )}
            </li>
          ))}
        </ul>
        {n > shown && (
          <p className="note warn">
            Compare trains at most {MAX_LESSON_RUNS} runs at once: the first {MAX_LESSON_RUNS} of these start.
          </p>
        )}
      </div>
      <div className="lesson-look">
        <h4>Look at</h4>
        <ul className="chips" data-testid={`lesson-look-${lesson.id}`}>
          {lesson.lookAt.map((m) => (
            <li key={m}>
              <button
                type="button"
                className="chip"
                title={`Show the ${metricTitle(m)} chart (${m})`}
                onClick={() => showChart(m, n > 1)}
              >
                {metricTitle(m)}
              </button>
            </li>
          ))}
        </ul>
      </div>
      <MeasuredOutcome lesson={lesson} measured={measured} />
      <div className="row lesson-actions">
        <button
          type="button"
          className="primary"
          data-testid={`lesson-open-${lesson.id}`}
          disabled={busy}
          onClick={() => void openLesson(lesson.id, { steps })}
        >
          Open
        </button>
        <button
          type="button"
          data-testid={`lesson-run-live-${lesson.id}`}
          disabled={busy}
          onClick={() => void openLesson(lesson.id, { steps, live: true })}
          title={
            n === 1
              ? 'Train it here, now'
              : `Train ${shown === 2 ? 'both runs' : `all ${shown} runs`} side by side, now`
          }
        >
          Run it live
        </button>
        <a
          href={`?lesson=${encodeURIComponent(lesson.id)}`}
          className="small"
          data-testid={`lesson-link-${lesson.id}`}
          title="A link that opens this lesson with its recording (its runs start when Run it live is pressed)"
        >
          link to this lesson
        </a>
        <span className="small muted" data-testid={`lesson-estimate-${lesson.id}`}>
          {estimate}
        </span>
        {active && <span className="badge">open</span>}
      </div>
    </article>
  );
}
