/**
 * `zero_variance_group`: groups whose completions' total rewards all agree (all right or all wrong) give
 * GRPO no advantage and so no learning signal. Flags a step where at least STEP_SHARE of its groups (and
 * at least STEP_GROUPS of them) are so, and a prompt that is so in every step it appears in, over at
 * least PROMPT_STEPS steps (docs/findings.md).
 */
import type { RunGroup } from '../types.ts';
import { fmt, pct } from './numbers.ts';
import { type Finding, type FindingRule, MAX_FINDING_ROWS } from './types.ts';

export const STEP_SHARE = 0.5;
export const STEP_GROUPS = 2;
export const PROMPT_STEPS = 3;

interface ZeroGroup {
  group: number;
  prompt: string;
  reward: number;
  rows: number[];
}
interface StepMeasure {
  /** Groups of two or more completions. */
  groups: number;
  zero: ZeroGroup[];
  /** Each prompt's groups in this step that are not zero-variance (a prompt stuck must be stuck in all). */
  varied: string[];
}

const allAgree = (g: RunGroup): boolean => {
  const first = g.completions[0]!.reward;
  return g.completions.every((c) => Object.is(c.reward, first));
};

export const zeroVarianceGroup: FindingRule<StepMeasure> = {
  kind: 'zero_variance_group',
  measure(step) {
    const m: StepMeasure = { groups: 0, zero: [], varied: [] };
    for (const g of step.groups) {
      if (g.completions.length < 2) continue;
      m.groups++;
      if (allAgree(g))
        m.zero.push({
          group: g.index,
          prompt: g.prompt,
          reward: g.completions[0]!.reward,
          rows: g.completions.map((c) => c.row),
        });
      else m.varied.push(g.prompt);
    }
    return m;
  },
  judge(measured, { name }) {
    const out: Finding[] = [];
    const prompts = new Map<string, { steps: number[]; varied: boolean; last: ZeroGroup }>();
    for (const { step, value: m } of measured) {
      for (const p of m.varied) {
        const seen = prompts.get(p);
        if (seen) seen.varied = true;
        else prompts.set(p, { steps: [], varied: true, last: { group: -1, prompt: p, reward: 0, rows: [] } });
      }
      for (const z of m.zero) {
        const seen = prompts.get(z.prompt) ?? { steps: [], varied: false, last: z };
        if (seen.steps[seen.steps.length - 1] !== step) seen.steps.push(step);
        seen.last = z;
        prompts.set(z.prompt, seen);
      }
      const share = m.groups ? m.zero.length / m.groups : 0;
      if (m.zero.length < STEP_GROUPS || share < STEP_SHARE) continue;
      const byReward = new Map<number, number>();
      for (const z of m.zero) byReward.set(z.reward, (byReward.get(z.reward) ?? 0) + 1);
      const split = [...byReward.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([r, n]) => `${n} all ${fmt(r)}`)
        .join(', ');
      out.push({
        run: name,
        kind: 'zero_variance_group',
        step,
        group: null,
        rows: m.zero.flatMap((z) => z.rows).slice(0, MAX_FINDING_ROWS),
        score: share,
        text:
          `Step ${step}: ${m.zero.length} of ${m.groups} groups (${pct(share)}; ${split}) have every ` +
          `completion's reward equal, so they give no advantage (flagged at >= ${pct(STEP_SHARE)} of a step's ` +
          `groups): make those prompts harder or easier, or sample more per prompt.`,
      });
    }
    for (const [prompt, p] of prompts) {
      if (p.varied || p.steps.length < PROMPT_STEPS) continue;
      const first = p.steps[0]!;
      const last = p.steps[p.steps.length - 1]!;
      const shown = prompt.length > 60 ? `${prompt.slice(0, 57)}...` : prompt;
      out.push({
        run: name,
        kind: 'zero_variance_group',
        step: last,
        steps: [first, last],
        group: p.last.group,
        rows: p.last.rows,
        score: 0.5 * Math.min(1, p.steps.length / 10),
        text:
          `The prompt ${JSON.stringify(shown)} had every completion's reward equal (last ${fmt(p.last.reward)}) in ` +
          `all ${p.steps.length} steps it was sampled (${first}-${last}; flagged at >= ${PROMPT_STEPS}): ` +
          `it teaches nothing; drop it or change its difficulty.`,
      });
    }
    return out;
  },
};
