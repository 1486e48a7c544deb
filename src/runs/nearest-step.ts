/**
 * The step a link's step stands for: the nearest among a run's steps (the lower of two as near). The
 * page picks it once the index is known (src/ui/state/viewer-actions.ts), and the reader picks the same
 * one before that, to read it while the page is still busy with the index (src/runs/opened-run.ts).
 */
export function nearestStep(steps: readonly number[], wanted: number): number | null {
  if (!steps.length) return null;
  return steps.reduce((best, s) => (Math.abs(s - wanted) < Math.abs(best - wanted) ? s : best), steps[0]!);
}
