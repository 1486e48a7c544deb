import type { RunProblem } from '../../../runs/types.ts';

const where = (p: RunProblem) =>
  `${p.file}${p.line !== undefined ? `, line ${p.line}` : ''}${p.row !== undefined ? `, row ${p.row}` : ''}`;

/** What a reader skipped (a file, a line, a row), folded away: the rest of the run opened. */
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
  );
}
