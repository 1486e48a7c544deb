/**
 * The last two phases of a training step: the rollout records a person inspects (every per-token
 * number the graph output, copied, never recomputed) and the step's metrics.
 */
import { predictingColumn, type Layout } from '../model/layout.ts';
import type { TextCodec } from '../model/text-codec.ts';
import type { Sampled } from './collect.ts';
import type { RunConfig } from './config.ts';
import { mean, std, type MetricKey } from './metrics.ts';
import { clipSide } from './objective-form.ts';
import type { RolloutRecord } from './rollout.ts';
import type { StepBatch } from './step-batch.ts';

export type StepMetrics = Record<string, number> & { step: number };

/** The graph's per-token outputs of the last optimisation pass, one map per minibatch, in the [rows, len] grid. */
export type PassOutputs = Record<string, Float32Array>[];

/** What the update's last pass left: the grid it ran on and its per-token outputs. */
export interface UpdatePass {
  layout: Layout;
  lastPass: PassOutputs;
}

/** Token-level tallies the records collect for the metrics. */
export interface TokenTallies {
  ratios: number[];
  clipLow: number;
  clipHigh: number;
  entropies: number[];
  kls: number[];
  /**
   * Each completion the update pushes down (negative advantage): its group, length, and per-token push (|A| × mean
   * aggregation weight of its weighted tokens).
   */
  pushedDown: { group: number; length: number; push: number }[];
}

/** Rollout records of the step numbered `step` (updates done after it), and the token tallies. */
export function buildRecords(
  step: number,
  c: RunConfig,
  batch: StepBatch,
  pass: UpdatePass,
  codec: TextCodec,
): { records: RolloutRecord[]; tallies: TokenTallies } {
  const { rows: flat, advantages, masks, refLogp } = batch;
  const { layout, lastPass } = pass;
  const G = c.num_generations;
  const mbRows = flat.length / c.minibatches;
  const len = layout.promptLen + layout.completionLen;
  const at = (name: string, r: number, i: number) =>
    lastPass[Math.floor(r / mbRows)]![name]![(r % mbRows) * len + predictingColumn(layout, i)]!;
  const t: TokenTallies = { ratios: [], clipLow: 0, clipHigh: 0, entropies: [], kls: [], pushedDown: [] };
  const records = flat.map((s, r): RolloutRecord => {
    const A = advantages[Math.floor(r / G)]![r % G]!;
    const n = Math.min(s.tokens.length, layout.completionLen);
    const rec: RolloutRecord = {
      step,
      group: Math.floor(r / G),
      index: r % G,
      prompt: s.instance.prompt,
      hint: s.hint,
      tokens: s.tokens,
      tokenText: s.tokens.map(codec.tokenText),
      completion: codec.decode(s.tokens),
      oldLogp: s.oldLogp,
      newLogp: [],
      refLogp: refLogp ? refLogp[r]!.slice(0, n) : null,
      ratio: [],
      clipped: [],
      entropy: [],
      kl: [],
      advantage: A,
      objective: [],
      tokenLoss: [],
      weight: masks.weights[r]!.slice(0, n),
      lossContribution: [],
      trained: [],
      reward: s.reward,
      components: s.components,
      correct: s.trueCorrect,
      reason: s.verdict.reason,
      truncated: s.truncated,
      hinted: s.hint !== '',
      flipped: s.flipped,
    };
    const weighted = rec.weight.filter((w) => w > 0);
    if (A < 0 && weighted.length)
      t.pushedDown.push({
        group: rec.group,
        length: s.tokens.length,
        push: (-A * weighted.reduce((a, b) => a + b, 0)) / weighted.length,
      });
    for (let i = 0; i < n; i++) {
      const ratio = at('ratio', r, i);
      const side = clipSide(c, ratio, at('logp', r, i) - s.oldLogp[i]!, A);
      const lo = side === 'low';
      const hi = side === 'high';
      const trained = masks.trainMask[r]![i]! > 0;
      rec.newLogp.push(at('logp', r, i));
      rec.ratio.push(ratio);
      rec.clipped.push(lo ? 'low' : hi ? 'high' : null);
      rec.entropy.push(at('entropy', r, i));
      rec.kl.push(at('kl', r, i));
      rec.objective.push(at('objective', r, i));
      rec.tokenLoss.push(at('token_loss', r, i));
      rec.lossContribution.push(at('loss_contribution', r, i));
      rec.trained.push(trained);
      if (trained) {
        t.ratios.push(ratio);
        if (lo) t.clipLow++;
        if (hi) t.clipHigh++;
      }
      if (masks.seqMask[r]![i]) {
        t.entropies.push(at('entropy', r, i));
        t.kls.push(at('kl', r, i));
      }
    }
    return rec;
  });
  return { records, tallies: t };
}

/**
 * 'length_bias/push_ratio': in each group, the per-token push on its longest pushed-down completion
 * over that on its shortest, where their lengths differ; the mean over those groups, 1 when none.
 * Under per-sequence normalisation (loss_type grpo) this is about shortest ÷ longest length; under
 * a constant divisor (dr_grpo) or a token mean it is about 1.
 */
export function lengthBiasPushRatio(pushedDown: TokenTallies['pushedDown']): number {
  const byGroup = new Map<number, TokenTallies['pushedDown']>();
  for (const p of pushedDown) {
    const g = byGroup.get(p.group);
    if (g) g.push(p);
    else byGroup.set(p.group, [p]);
  }
  const ratios: number[] = [];
  for (const g of byGroup.values()) {
    const longest = g.reduce((a, b) => (b.length > a.length ? b : a));
    const shortest = g.reduce((a, b) => (b.length < a.length ? b : a));
    if (longest.length > shortest.length && shortest.push > 0) ratios.push(longest.push / shortest.push);
  }
  return ratios.length ? mean(ratios) : 1;
}

/** Wall-clock marks of the step's phases (performance.now() values). */
export interface StepTimes {
  start: number;
  sampled: number;
  verifyMs: number;
  updateStart: number;
  end: number;
}

export interface StepCounts {
  rounds: number;
  zeroVarianceFirstRound: number;
  accuracyFirstRound: number;
  hintedGroups: number;
  sampledTokens: number;
  losses: number[];
  gradNorms: number[];
  skipped: boolean;
  learningRate: number;
}

/** The step's metrics (names as TRL's GRPOTrainer logs them where it has the same quantity; see metrics.ts). */
export function stepMetrics(
  step: number,
  c: RunConfig,
  flat: Sampled[],
  t: TokenTallies,
  n: StepCounts,
  time: StepTimes,
): StepMetrics {
  const lengths = flat.map((s) => s.tokens.length);
  const rewards = flat.map((s) => s.reward);
  const r = t.ratios;
  const sumR = r.reduce((a, b) => a + b, 0);
  const sumR2 = r.reduce((a, b) => a + b * b, 0);
  const samplingS = (time.sampled - time.start - time.verifyMs) / 1000;
  const updateS = (time.end - time.updateStart) / 1000;
  // Typed by the metric table (src/rl/metrics.ts): a key missing here, or one the table lacks, does not compile.
  const logged: Record<MetricKey, number> = {
    reward: mean(rewards),
    reward_std: std(rewards),
    accuracy: mean(flat.map((s) => (s.trueCorrect ? 1 : 0))),
    'accuracy/observed': mean(flat.map((s) => (s.verdict.correct ? 1 : 0))),
    'accuracy/first_round': n.accuracyFirstRound,
    frac_reward_zero_std: n.zeroVarianceFirstRound / c.prompts_per_step,
    'completions/mean_length': mean(lengths),
    'completions/max_length': Math.max(...lengths),
    'completions/min_length': Math.min(...lengths),
    'completions/clipped_ratio': mean(flat.map((s) => (s.truncated ? 1 : 0))),
    'completions/mean_length_wrong': mean(flat.filter((s) => !s.trueCorrect).map((s) => s.tokens.length)),
    'length_bias/push_ratio': lengthBiasPushRatio(t.pushedDown),
    entropy: mean(t.entropies),
    kl: mean(t.kls),
    'ratio/mean': r.length ? sumR / r.length : 1,
    'ratio/min': r.length ? Math.min(...r) : 1,
    'ratio/max': r.length ? Math.max(...r) : 1,
    'clip_ratio/low_mean': r.length ? t.clipLow / r.length : 0,
    'clip_ratio/high_mean': r.length ? t.clipHigh / r.length : 0,
    'clip_ratio/region_mean': r.length ? (t.clipLow + t.clipHigh) / r.length : 0,
    ess: sumR2 > 0 ? (sumR * sumR) / sumR2 / r.length : 1,
    grad_norm: mean(n.gradNorms),
    loss: mean(n.losses),
    learning_rate: n.learningRate,
    skipped: n.skipped ? 1 : 0,
    hinted_groups: n.hintedGroups,
    noise_flips: flat.filter((s) => s.flipped).length,
    sampling_rounds: n.rounds,
    'time/sampling': samplingS,
    'time/verify': time.verifyMs / 1000,
    'time/update': updateS,
    'time/step': (time.end - time.start) / 1000,
    'tokens_per_second/sampling': n.sampledTokens / Math.max(1e-9, samplingS),
    'tokens_per_second/update': (lengths.reduce((a, b) => a + b, 0) * c.num_iterations) / Math.max(1e-9, updateS),
  };
  const metrics: StepMetrics = { step, ...logged };
  for (const k of Object.keys(flat[0]!.components)) {
    const xs = flat.map((s) => s.components[k] ?? 0);
    metrics[`rewards/${k}/mean`] = mean(xs);
    metrics[`rewards/${k}/std`] = std(xs);
  }
  return metrics;
}
