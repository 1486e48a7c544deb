/**
 * A run in the documented JSONL (docs/run-formats.md) with each kind of finding planted at known steps and
 * rows, for the findings' tests (src/runs/findings/findings.test.ts, src/cli/findings-command.test.ts) and
 * the page's (e2e/findings.spec.mjs reads src/runs/fixtures/planted-findings.jsonl, which is this run with
 * every plant). With no plants it is a clean run: every group's rewards differ, correctness rises with the
 * total, lengths and entropy hold steady, nothing is truncated, repeated or non-finite.
 *
 * 12 steps of 4 groups of 4 completions; row = 4 x group + completion. Rewards: `correctness` (0 or 1) and
 * `format` (0 or 0.5). Non-finite numbers are written bare (NaN, Infinity), as Python's json.dumps does.
 */
import type { Finding, FindingKind } from './types.ts';

export const PLANTED_STEPS = 12;
const GROUPS = 4;
const PER_GROUP = 4;
const STUCK_PROMPT = 'Which is larger, 9 or 12? Answer with the number.';
const EXTRA_WORDS =
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec ' +
  'romeo sierra tango uniform victor whiskey xray yankee zulu one two three four five six seven eight nine ten ' +
  'eleven twelve thirteen fourteen';

/** Where each plant's finding is, as `rlvr findings --json` gives it (score and text aside). */
export type PlantedExpectation = Pick<Finding, 'kind' | 'step' | 'steps' | 'group' | 'rows'>;

const all = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const corrZero = all(0, GROUPS * PER_GROUP - 1).filter((r) => r % PER_GROUP !== 0);

/** Each kind's plant: the findings it must give, and only those (in a run with that plant alone). */
export const plantedExpectations: Record<FindingKind, PlantedExpectation[]> = {
  zero_variance_group: [
    { kind: 'zero_variance_group', step: 5, group: null, rows: all(0, 11) },
    { kind: 'zero_variance_group', step: 4, steps: [2, 4], group: 3, rows: all(12, 15) },
  ],
  reward_hacking: [10, 11, 12].map((step) => ({ kind: 'reward_hacking', step, group: null, rows: corrZero })),
  truncation: [{ kind: 'truncation', step: 8, group: null, rows: [1, 6, 9, 12, 14] }],
  repetition: [{ kind: 'repetition', step: 6, group: null, rows: [2, 9] }],
  length_blowup: [{ kind: 'length_blowup', step: 9, steps: [9, 12], group: null, rows: all(0, 15) }],
  logprob_mismatch: [{ kind: 'logprob_mismatch', step: 4, group: null, rows: [5] }],
  entropy_collapse: [{ kind: 'entropy_collapse', step: 9, steps: [9, 12], group: null, rows: [] }],
  nonfinite: [{ kind: 'nonfinite', step: 7, group: null, rows: [3, 4] }],
};

interface Line {
  step: number;
  prompt: string;
  completion: string;
  rewards: { correctness: number; format: number };
  reward?: number | string;
  advantage?: number | string;
  truncated: boolean;
  tokens: { text: string[]; logprobs: number[]; newLogprobs: number[]; entropy: number[] };
}

/** The run's lines (one per completion, in step order) with the given kinds planted. */
export function plantedLines(plants: readonly FindingKind[] = []): string[] {
  const has = (k: FindingKind) => plants.includes(k);
  const lines: string[] = [];
  for (let step = 1; step <= PLANTED_STEPS; step++) {
    const stepLines: Line[] = [];
    for (let g = 0; g < GROUPS; g++) {
      const stuck = has('zero_variance_group') && g === 3 && step >= 2 && step <= 4;
      const a = step * 7 + g;
      const b = g + 3;
      const prompt = stuck ? STUCK_PROMPT : `Step ${step} question ${g}: what is ${a} plus ${b}?`;
      for (let i = 0; i < PER_GROUP; i++) {
        const row = g * PER_GROUP + i;
        // Correct answers per group: 1, then 2 from step 5, then 3 from step 9 (never 0 or 4: the rewards differ).
        const rightCount = has('reward_hacking') ? 1 : step < 5 ? 1 : step < 9 ? 2 : 3;
        let correct = i < rightCount ? 1 : 0;
        let format = (i + g + step) % 3 !== 0 ? 0.5 : 0;
        if (has('reward_hacking')) format = Math.min(1, (step - 1) / 6);
        if (stuck) [correct, format] = [1, 0.5];
        if (has('zero_variance_group') && step === 5 && g < 3) [correct, format] = [0, 0.5];
        let completion =
          `Let me add ${a} and ${b}. ${a} plus ${b} makes ${a + b}, so the answer is ` +
          `${correct ? a + b : a + b + 1 + i}. Step ${step} try ${i}.`;
        if (has('repetition') && step === 6 && (row === 2 || row === 9))
          completion = 'I think the answer is 12. '.repeat(6);
        if (has('length_blowup') && step >= 9) completion += ` Checking again: ${EXTRA_WORDS}.`;
        const text = completion.split(/(?<= )/);
        const logprobs = text.map((_, j) => -0.1 * ((j % 5) + 1));
        const newLogprobs = logprobs.map((x, j) =>
          has('logprob_mismatch') && step === 4 && row === 5 && j < 3 ? x + 1.2 : x,
        );
        const entropy = text.map((_, j) => (has('entropy_collapse') && step >= 9 ? 0.1 : 1) + 0.01 * (j % 3));
        const line: Line = {
          step,
          prompt,
          completion,
          rewards: { correctness: correct, format },
          truncated: has('truncation') && step === 8 && [1, 6, 9, 12, 14].includes(row),
          tokens: { text, logprobs, newLogprobs, entropy },
        };
        if (has('nonfinite') && step === 7 && row === 3) line.reward = 'NaN';
        if (has('nonfinite') && step === 7 && row === 4) line.advantage = 'Infinity';
        stepLines.push(line);
      }
    }
    lines.push(...stepLines.map(pythonJson));
  }
  return lines;
}

/** JSON with the marked non-finite numbers written bare, as Python's json.dumps writes NaN and Infinity. */
const pythonJson = (line: Line): string =>
  JSON.stringify(line).replace(/"(reward|advantage)":"(NaN|Infinity|-Infinity)"/g, '"$1":$2');

/** The whole file: lines joined by "\n" with a final "\n". */
export const plantedJsonl = (plants: readonly FindingKind[] = []): string => `${plantedLines(plants).join('\n')}\n`;
