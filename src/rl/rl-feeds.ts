/**
 * What the RL update graph (objective.ts buildRlGraph) is fed for one minibatch of a step: the forward's
 * packed prompts and completions and the objective's per-token inputs, each under the name objective.ts
 * declares (ObjectiveFeeds), so the two cannot drift apart (objective-feeds.test.ts).
 */
import type { DeviceTensor } from '../engine/backend.ts';
import { pack, predictingColumn, splitShared, totalLen, type Layout, type PromptGroups } from '../model/layout.ts';
import type { Policy } from '../model/policy.ts';
import { Rng } from '../util/rng.ts';
import type { RunConfig } from './config-fields.ts';
import { covSelection } from './cov-select.ts';
import { knobValues, type ObjectiveFeeds, offPolicyInput } from './objective.ts';
import { objectiveForm, objectiveForms } from './objective-form.ts';
import type { StepBatch } from './step-batch.ts';

/**
 * One minibatch of a step's update: `rows` rows of the batch from row `first`, the `index`-th, on
 * the step's fitted grid `layout`; `groups` are its prompts (promptGroups) and `slots` the graph's
 * prompt slots (its distinct prompts, padded up to the same number in every minibatch).
 */
export interface Minibatch {
  index: number;
  first: number;
  rows: number;
  layout: Layout;
  groups: PromptGroups;
  slots: number;
}

/**
 * The feeds of the RL graph (buildRlGraph) for one minibatch of a step, all but what Policy.train adds
 * itself (weights, AdamW moments, step, lr): the forward's inputs (Policy.sharedFeeds) and the
 * objective's, each token's value in the column that predicts it (predictingColumn). The trainer's
 * one builder of them; code that feeds a fixed batch of its own (bench/core.ts, fitted-grid.test.ts)
 * types its objective feeds as ObjectiveFeeds.
 */
export function rlGraphFeeds(
  policy: Pick<Policy, 'backend' | 'sharedFeeds'>,
  c: RunConfig,
  batch: StepBatch,
  mb: Minibatch,
): Record<string, DeviceTensor> {
  const { rows: flat, masks, advantages, refLogp } = batch;
  const { first: r0, rows: mbRows, layout } = mb;
  const G = c.num_generations;
  const form = objectiveForm(c.loss_type);
  const be = policy.backend;
  const len = totalLen(layout);
  const rowsHere = flat.slice(r0, r0 + mbRows);
  const advantage = (r: number) => advantages[Math.floor(r / G)]![r % G]!;
  // One [rows, len] grid: fill(r, i) for completion token i of batch row r, 0 elsewhere.
  const grid = (fill: (r: number, i: number) => number): DeviceTensor => {
    const a = new Float32Array(mbRows * len);
    for (let r = 0; r < mbRows; r++) {
      const s = flat[r0 + r]!;
      for (let i = 0; i < s.tokens.length && i < layout.completionLen; i++)
        a[r * len + predictingColumn(layout, i)] = fill(r0 + r, i);
    }
    return be.tensor('float32', a, [mbRows, len]);
  };
  const scalar = (v: number) => be.tensor('float32', [v], []);
  const flag = (on: boolean) => be.tensor('bool', [on ? 1 : 0], []);
  const feeds: ObjectiveFeeds<DeviceTensor> = {
    old_logp: grid((r, i) => flat[r]!.oldLogp[i]!),
    // Without a KL term the reference is never read: the sampling-time log-probs stand in.
    ref_logp: grid((r, i) => (refLogp ? refLogp[r]![i]! : flat[r]!.oldLogp[i]!)),
    advantages: grid((r) => advantage(r)),
    weights: grid((r, i) => masks.weights[r]![i]!),
    mask: grid((r, i) => masks.seqMask[r]![i]!),
    seq_len: be.tensor(
      'float32',
      rowsHere.map((_, k) =>
        Math.max(
          1,
          masks.seqMask[r0 + k]!.reduce((a, b) => a + b, 0),
        ),
      ),
      [mbRows, 1],
    ),
    beta: scalar(c.beta),
    entropy_coef: scalar(c.entropy_coef),
    sequence_level: flag(c.importance_sampling_level === 'sequence'),
    use_k3: flag(c.kl_estimator === 'k3'),
    use_bias_correction_kl: flag(c.use_bias_correction_kl),
  };
  const knobs = knobValues(c);
  for (const name of objectiveForms[form].knobs) feeds[name] = scalar(knobs[name]);
  if (c.off_policy_mask_threshold !== null) feeds[offPolicyInput] = scalar(c.off_policy_mask_threshold);
  if (objectiveForms[form].covSelect) {
    // The tokens treated apart, picked once per step from the sampling-time log-probs.
    const rng = Rng.derive(c.seed, 'cov-select', batch.updatesDone, mb.index);
    const picked = covSelection(
      c,
      rowsHere.map((s, k) => ({ advantage: advantage(r0 + k), logp: s.oldLogp, mask: masks.trainMask[r0 + k]! })),
      rng,
    );
    feeds.cov_select = grid((r, i) => picked[r - r0]![i]!);
  }
  const packed = pack(
    layout,
    rowsHere.map((s) => s.prompt),
    rowsHere.map((s) => s.tokens),
  );
  return {
    ...policy.sharedFeeds(splitShared(packed, layout.promptLen, mb.groups, mb.slots), 1 / c.temperature),
    ...feeds,
  };
}
