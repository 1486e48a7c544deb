import { measureKey, perSeedVerdicts, type Lesson, type MeasuredLesson } from '../../../lessons/index.ts';
import { fmtMeasured, verdictBody } from '../../derive/lesson-plan.ts';

const maxK = (p: Record<string, number> | undefined) =>
  Math.max(
    0,
    ...Object.keys(p ?? {})
      .map(Number)
      .filter(Number.isFinite),
  );

/**
 * What `rlvr lesson run ID` measured for this lesson (its summary and the numbers per run), or a
 * plain "not measured yet" with the command that measures it. `measured` undefined: still reading.
 */
export function MeasuredOutcome({ lesson, measured }: { lesson: Lesson; measured: MeasuredLesson | null | undefined }) {
  if (measured === undefined) {
    return (
      <div className="lesson-measured" data-testid={`measured-${lesson.id}`} data-measured="loading">
        <p className="muted small">Reading the measured outcomes…</p>
      </div>
    );
  }
  if (measured === null) {
    return (
      <div className="lesson-measured pending" data-testid={`measured-${lesson.id}`} data-measured="false">
        <h4>What this model shows</h4>
        <p>
          <strong>Not measured yet.</strong> The outcome is recorded by running the lesson headlessly:{' '}
          <code>npx rlvr lesson run {lesson.id}</code>. Until then this lesson claims nothing about the tiny model; open
          it and see.
        </p>
      </div>
    );
  }
  const verdict = lesson.verdict(measured);
  const seeds = perSeedVerdicts(lesson, measured);
  const columns = lesson.measures.filter((m) => m.metric !== 'eval');
  const evalK = lesson.measures.some((m) => m.metric === 'eval')
    ? Math.max(maxK(measured.base_pass_at_k), ...measured.runs.map((r) => maxK(r.final_pass_at_k)))
    : 0;
  const ks = evalK > 1 ? [1, evalK] : evalK === 1 ? [1] : [];
  return (
    <div className="lesson-measured" data-testid={`measured-${lesson.id}`} data-measured="true">
      <h4>What this model shows</h4>
      <p className="lesson-summary" data-testid={`measured-summary-${lesson.id}`}>
        {measured.summary}
      </p>
      <p
        className={`lesson-verdict ${verdict.shows ? 'shows' : 'not-shown'}`}
        data-testid={`measured-verdict-${lesson.id}`}
        data-shows={verdict.shows}
      >
        <strong>{verdict.shows ? 'The effect shows.' : 'The effect does not show here.'}</strong> {verdictBody(verdict)}
      </p>
      {seeds.length > 0 && (
        <details className="lesson-per-seed" data-testid={`measured-per-seed-${lesson.id}`}>
          <summary>
            Per seed: the effect shows on {seeds.filter((x) => x.verdict.shows).length} of {seeds.length}
          </summary>
          <ul>
            {seeds.map((x) => (
              <li key={x.seed} data-shows={x.verdict.shows}>
                seed {x.seed}: {x.verdict.text}
              </li>
            ))}
          </ul>
        </details>
      )}
      <table className="lesson-numbers" data-testid={`measured-table-${lesson.id}`}>
        <caption>
          measured {measured.date} with <code>rlvr lesson run {lesson.id}</code>:{' '}
          {measured.seeds && measured.seeds.length > 1
            ? `mean over seeds ${measured.seeds.join(', ')}`
            : `seed ${measured.seed}`}
          , {measured.steps} steps per run
        </caption>
        <thead>
          <tr>
            <th scope="col">run</th>
            {columns.map((m) => (
              <th scope="col" key={measureKey(m)} title={measureKey(m)}>
                {m.description}
              </th>
            ))}
            {ks.map((k) => (
              <th scope="col" key={`k${k}`}>
                held-out pass@{k}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {ks.length > 0 && measured.base_pass_at_k && (
            <tr>
              <th scope="row">base policy</th>
              {columns.map((m) => (
                <td key={measureKey(m)}>—</td>
              ))}
              {ks.map((k) => (
                <td key={k} className="num">
                  {fmtMeasured(measured.base_pass_at_k?.[String(k)])}
                </td>
              ))}
            </tr>
          )}
          {measured.runs.map((r) => (
            <tr key={r.label}>
              <th scope="row">{r.label}</th>
              {columns.map((m) => (
                <td key={measureKey(m)} className="num">
                  {fmtMeasured(r.values[measureKey(m)])}
                </td>
              ))}
              {ks.map((k) => (
                <td key={k} className="num">
                  {fmtMeasured(r.final_pass_at_k?.[String(k)])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
