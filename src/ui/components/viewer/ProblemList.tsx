import type { RunProblem } from '../../../runs/types.ts';
import { problemSummary } from '../../derive/step-notes.ts';

const where = (p: RunProblem) =>
  `${p.file}${p.line !== undefined ? `, line ${p.line}` : ''}${p.row !== undefined ? `, row ${p.row}` : ''}`;

/**
 * What a reader skipped (a file, a line, a row): the count and the first problem in full on a line of
 * their own, seen without a click, and every problem in the list folded below it.
 */
export function ProblemList({
  problems,
  what,
  rest = 'the rest opened',
  testId = 'viewer-problems',
}: {
  problems: RunProblem[];
  what: string;
  /** What happened to the rest ("the rest searched" under a search). */
  rest?: string;
  testId?: string;
}) {
  if (!problems.length) return null;
  return (
    <>
      <p className="bad small" data-testid={`${testId}-summary`}>
        {problemSummary(problems, what)}
      </p>
      <details className="viewer-problems" data-testid={testId}>
        <summary>
          {problems.length} problem{problems.length === 1 ? '' : 's'} {what}: skipped, {rest}
        </summary>
        <ul>
          {problems.map((p, i) => (
            <li key={i} data-testid="viewer-problem">
              {/* Readers' messages mostly name their file already; the place is added only where not. */}
              {p.message.startsWith(p.file) ? p.message : `${where(p)}: ${p.message}`}
            </li>
          ))}
        </ul>
      </details>
    </>
  );
}
