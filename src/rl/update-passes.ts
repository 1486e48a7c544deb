/**
 * A step's update (src/rl/trainer.ts calls it after sampling and the advantages): the RL graph run over the
 * step's rows, num_iterations passes of `minibatches` optimizer steps, on the grid the rows fit.
 */
import { chooseGrid, promptGroups, totalLen, type Layout } from '../model/layout.ts';
import type { Policy } from '../model/policy.ts';
import {
  appliedEntropyCoef,
  initialEntropyControl,
  nextEntropyControl,
  type EntropyControl,
} from './adaptive-entropy.ts';
import type { RunConfig } from './config.ts';
import { buildRlGraph, objectiveForm, objectiveOptions } from './objective.ts';
import { rlGraphFeeds } from './rl-feeds.ts';
import { type StepBatch, trainedEntropy } from './step-batch.ts';
import type { PassOutputs, UpdatePass } from './step-records.ts';

/** The RL graph's AdamW settings from the run config (the bench's update uses the same, bench/core.ts). */
export function adamSettings(c: RunConfig) {
  return {
    beta1: c.adam_beta1,
    beta2: c.adam_beta2,
    eps: 1e-8,
    weightDecay: c.weight_decay,
    maxGradNorm: c.max_grad_norm,
  };
}

/** What the update gives the step: its grid and last pass (UpdatePass), each optimizer step's figures. */
export interface UpdateResult extends UpdatePass {
  losses: number[];
  gradNorms: number[];
  /** Some optimizer step was skipped (a non-finite gradient). */
  skipped: boolean;
  entropyControl: EntropyControl | null;
}

/**
 * μ epochs × minibatches of the RL graph on the step's fitted grid (layout.ts chooseGrid), its feeds
 * from rlGraphFeeds (rl-feeds.ts); returns that grid, the per-token outputs of the last pass over each
 * minibatch, and the adaptive entropy controller as the last optimizer step left it.
 */
export async function updatePasses(
  policy: Policy,
  c: RunConfig,
  batch: StepBatch,
  lr: number,
  entropyControl: EntropyControl | null,
): Promise<UpdateResult> {
  let control = entropyControl;
  const flat = batch.rows;
  const G = c.num_generations;
  const M = c.minibatches;
  const mbRows = flat.length / M;
  // Prompt slots per minibatch: its groups (distinct prompts are padded up to this, one graph shape per run).
  const groups = Array.from({ length: M }, (_, mb) =>
    promptGroups(flat.slice(mb * mbRows, (mb + 1) * mbRows).map((s) => s.prompt)),
  );
  const distinct = Math.max(Math.ceil(mbRows / G), ...groups.map((x) => x.first.length));
  const form = objectiveForm(c.loss_type);
  const options = objectiveOptions(c);
  const key = (l: Layout) =>
    `rl:${form}${options.offPolicyMask ? '+opsm' : ''}:${mbRows}x${totalLen(l)}:u${distinct}:${c.adam_beta1}` +
    `:${c.adam_beta2}:${c.weight_decay}:${c.max_grad_norm}`;
  const layout = chooseGrid(
    policy.layout,
    flat.map((s) => s.tokens),
    (l) => policy.hasSession(key(l)),
  );
  const len = totalLen(layout);
  const lastPass: PassOutputs = new Array(M);
  const losses: number[] = [];
  const gradNorms: number[] = [];
  let skipped = false;
  const adam = adamSettings(c);
  // The minibatches' inputs are the same in every pass over the batch: built once.
  const feeds = groups.map((g, mb) =>
    rlGraphFeeds(policy, c, batch, {
      index: mb,
      first: mb * mbRows,
      rows: mbRows,
      layout,
      groups: g,
      slots: distinct,
    }),
  );
  for (let it = 0; it < c.num_iterations; it++) {
    for (let mb = 0; mb < M; mb++) {
      // use_adaptive_entropy: each optimizer step applies the controller's coefficient, then its tokens' entropy
      // moves it
      if (c.use_adaptive_entropy) control ??= initialEntropyControl(c);
      const stepFeeds = c.use_adaptive_entropy
        ? {
            ...feeds[mb]!,
            entropy_coef: policy.backend.tensor('float32', [appliedEntropyCoef(control, c)], []),
          }
        : feeds[mb]!;
      const res = await policy.train(
        key(layout),
        () => buildRlGraph(policy.config, mbRows, distinct, layout.promptLen, len, adam, form, options),
        stepFeeds,
        lr,
      );
      if (c.use_adaptive_entropy)
        control = nextEntropyControl(
          control!,
          trainedEntropy(res.values['entropy']!, batch, mb * mbRows, mbRows, layout),
          c,
        );
      if (!res.applied) skipped = true;
      losses.push(res.loss);
      gradNorms.push(res.gradNorm);
      lastPass[mb] = res.values;
    }
  }
  return { layout, lastPass, losses, gradNorms, skipped, entropyControl: control };
}
