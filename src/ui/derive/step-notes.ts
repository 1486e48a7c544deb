/**
 * What the run viewer says above a step's table and in a run's header, in words that claim only what is
 * so: a step whose rows could not be read says that, not "this run logged no advantages"; a run's
 * problems are counted and the first one named without a click (src/ui/components/viewer/ProblemList.tsx).
 */
import type { RunProblem, RunStep } from '../../runs/types.ts';
import type { StepScaling } from './run-view-model.ts';

/** The note above a step's groups: how its advantages were read, or that (part of) it could not be. */
export function stepScalingNote(step: RunStep, scaling: StepScaling): string {
  const rows = step.groups.reduce((n, g) => n + g.completions.length, 0);
  const first = step.problems[0];
  if (rows === 0 && first) {
    const more = step.problems.length > 1 ? ` (and ${step.problems.length - 1} more problems)` : '';
    return `Step ${step.step} could not be read: ${first.message}${more}.`;
  }
  if (scaling.logged === 0 && first) {
    return (
      `Part of step ${step.step} could not be read (${problemCount(step.problems.length)}, the first in ` +
      `${first.file}); the rows read logged no advantages: the derivation shows what GRPO ` +
      `(scale_rewards="group") would give.`
    );
  }
  if (scaling.logged === 0)
    return 'This run logged no advantages: the derivation shows what GRPO (scale_rewards="group") would give.';
  return scaling.matchesLog
    ? `The ${scaling.logged} logged advantages equal GRPO's with scale_rewards="${scaling.scaling}".`
    : "The logged advantages match none of GRPO's scalings (group, batch, none): see each derivation.";
}

const problemCount = (n: number) => `${n} problem${n === 1 ? '' : 's'}`;

/** The line a problem list shows unfolded: how many, and the first one in full (its file named). */
export function problemSummary(problems: RunProblem[], what: string): string | null {
  const first = problems[0];
  if (!first) return null;
  const line = first.line !== undefined ? `, line ${first.line}` : '';
  const place = `${line}${first.row !== undefined ? `, row ${first.row}` : ''}`;
  const where = first.message.startsWith(first.file) ? first.message : `${first.file}${place}: ${first.message}`;
  return `${problemCount(problems.length)} ${what}; the first: ${where}`;
}

/** What the run list says of a run: why it could not be opened, or its steps and, unfolded, its first problem. */
export function runListStatus(r: {
  error: string | null;
  loading: boolean;
  steps: number | undefined;
  problems: RunProblem[] | undefined;
  listedErrors?: string[];
}): { text: string; bad: boolean } {
  if (r.error) return { text: r.error, bad: true };
  if (r.loading) return { text: 'opening…', bad: false };
  const steps = r.steps === undefined ? 'not opened yet' : `${r.steps} step${r.steps === 1 ? '' : 's'} with rollouts`;
  const summary = r.problems ? problemSummary(r.problems, 'found') : null;
  if (summary) return { text: `${steps}; ${summary}`, bad: true };
  const listed = r.listedErrors ?? [];
  if (r.problems === undefined && listed.length)
    return { text: `${steps}; ${problemCount(listed.length)} found; the first: ${listed[0]}`, bad: true };
  return { text: steps, bad: false };
}
