/**
 * Two runs side by side on the prompts they share (the run viewer's "Aligned on shared prompts",
 * src/ui/components/viewer/AlignedRuns.tsx): for a step of run A, the nearest step of run B
 * (nearest-step.ts), and for each prompt both steps sampled, A's and B's completions with their rewards.
 * Runs of any format meet here as RunStep; the live run's inspected step becomes one with `recordedStep`.
 *
 * Prompts are matched on their text with white space runs made one space and the ends trimmed, since
 * writers differ only in that (a JSONL's trailing newline, veRL's decoded text); nothing else is changed.
 */
import type { RolloutRecord } from '../rl/rollout.ts';
import { nearestStep } from './nearest-step.ts';
import { groupRows, meanStd } from './opened-run.ts';
import { recordCompletion } from './record.ts';
import type { RunCompletion, RunStep } from './types.ts';

export interface AlignedCompletion {
  row: number;
  completion: string;
  reward: number;
  rewards: Record<string, number>;
  advantage?: number;
}

export interface AlignedSide {
  /** Every completion of the prompt in the step (all its groups), in row order. */
  completions: AlignedCompletion[];
  /** Mean of the finite total rewards. */
  mean: number;
}

export interface AlignedPrompt {
  /** As run A wrote it. */
  prompt: string;
  a: AlignedSide;
  b: AlignedSide;
}

export interface AlignedSteps {
  stepA: number;
  stepB: number;
  /** The prompts both steps sampled, in the order A first sampled them. */
  shared: AlignedPrompt[];
  /** How many prompts only one of the two steps sampled. */
  onlyA: number;
  onlyB: number;
}

/** The text prompts are matched on. */
export const promptKey = (prompt: string): string => prompt.trim().replace(/\s+/g, ' ');

function byPrompt(step: RunStep): Map<string, { prompt: string; completions: RunCompletion[] }> {
  const out = new Map<string, { prompt: string; completions: RunCompletion[] }>();
  for (const g of step.groups) {
    const key = promptKey(g.prompt);
    const entry = out.get(key) ?? out.set(key, { prompt: g.prompt, completions: [] }).get(key)!;
    entry.completions.push(...g.completions);
  }
  return out;
}

function side(completions: RunCompletion[]): AlignedSide {
  const sorted = [...completions].sort((x, y) => x.row - y.row);
  return {
    completions: sorted.map((c) => ({
      row: c.row,
      completion: c.completion,
      reward: c.reward,
      rewards: c.rewards,
      ...(c.advantage !== undefined && { advantage: c.advantage }),
    })),
    mean: meanStd(sorted.map((c) => c.reward)).mean,
  };
}

/** Step `a` of run A beside step `b` of run B, on the prompts both sampled. */
export function alignSteps(a: RunStep, b: RunStep): AlignedSteps {
  const inA = byPrompt(a);
  const inB = byPrompt(b);
  const shared: AlignedPrompt[] = [];
  for (const [key, pa] of inA) {
    const pb = inB.get(key);
    if (pb) shared.push({ prompt: pa.prompt, a: side(pa.completions), b: side(pb.completions) });
  }
  return { stepA: a.step, stepB: b.step, shared, onlyA: inA.size - shared.length, onlyB: inB.size - shared.length };
}

/** The step of run B to put beside step `stepA` of run A: the same step where B has it, else the nearest. */
export const stepToAlign = (stepsB: readonly number[], stepA: number): number | null => nearestStep(stepsB, stepA);

/** The live run's inspected step (its rollout records, as the trainer worker sends them) as a RunStep. */
export function recordedStep(step: number, records: RolloutRecord[]): RunStep {
  const rows = records.map((r, i) => recordCompletion(r, i));
  return {
    step,
    groups: groupRows(
      rows,
      records.map((r) => r.group),
    ),
    problems: [],
  };
}
