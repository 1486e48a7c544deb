// Our side of the TRL loss parity test (loss-parity.test.ts): policyObjective (src/rl/objective.ts, the
// graph the trainer runs) on the parity batch under one case, on onnxruntime-node (float32) and in the
// float64 reference interpreter, and the relative differences against TRL's numbers.
import { gradients } from '../../engine/autodiff.ts';
import type { createNodeBackend } from '../../engine/backend-node.ts';
import { compile } from '../../engine/compile.ts';
import { Graph } from '../../engine/graph.ts';
import { evaluate, nd, type NDArray } from '../../engine/reference.ts';
import { aggregationWeights, batchWeights } from '../../rl/advantages.ts';
import { defaultConfig, type RunConfig } from '../../rl/config.ts';
import {
  objectiveForm,
  objectiveInputs,
  objectiveOptions,
  objectiveScalars,
  offPolicyInput,
  policyObjective,
} from '../../rl/objective.ts';
import {
  ADVANTAGES,
  entropy,
  f32,
  LEN,
  LENGTHS,
  logp,
  mask,
  oldLogp,
  ourAdvantages,
  refLogp,
  ROWS,
  type Case,
} from './loss-parity-cases.ts';

export interface Side {
  loss: number;
  perToken: number[][];
  grad: number[][];
}

/** Our objective graph on the batch under one case: the loss, each token's loss and d loss / d logp. */
function ourGraph(
  k: Case,
  entropyValues: number[][],
): { g: Graph; feeds: Record<string, { shape: number[]; data: number[]; dtype?: 'bool' }> } {
  const g = new Graph();
  const lp = g.input('logp', 'float32', [ROWS, LEN]);
  const ent = g.input('entropy', 'float32', [ROWS, LEN]);
  const form = objectiveForm(k.loss_type);
  const o = policyObjective(g, objectiveInputs(g, ROWS, LEN, lp, ent, form, objectiveOptions(k)));
  const [dlogp] = gradients(g, o.loss, [lp]);
  g.output(o.loss, 'loss');
  g.output(o.tokenLoss, 'token_loss');
  g.output(dlogp!, 'dlogp');
  const advantagesOf = k.rewards_per_func ? ourAdvantages(k).map(f32) : ADVANTAGES;
  const tokens = mask.flat().reduce((a, b) => a + b, 0);
  const weights = k.steps_per_generation
    ? batchWeights(
        mask,
        k.loss_type,
        k.max_completion_length,
        k.steps_per_generation / k.gradient_accumulation_steps!,
        k.steps_per_generation,
      )
    : aggregationWeights(mask, k.loss_type, k.max_completion_length, tokens);
  const c: RunConfig = { ...defaultConfig, ...k };
  const grid = (a: number[][]) => ({ shape: [ROWS, LEN], data: a.flat() });
  const feeds: Record<string, { shape: number[]; data: number[]; dtype?: 'bool' }> = {
    logp: grid(logp),
    entropy: grid(entropyValues),
    old_logp: grid(oldLogp),
    ref_logp: grid(refLogp),
    advantages: grid(mask.map((m, r) => m.map(() => advantagesOf[r]!))),
    weights: grid(weights),
    mask: grid(mask),
    seq_len: { shape: [ROWS, 1], data: LENGTHS.map((n) => Math.max(1, n)) },
    beta: { shape: [], data: [k.beta] },
    entropy_coef: { shape: [], data: [k.entropy_coef] },
    sequence_level: { shape: [], data: [k.importance_sampling_level === 'sequence' ? 1 : 0], dtype: 'bool' },
    use_k3: { shape: [], data: [1], dtype: 'bool' },
    use_bias_correction_kl: { shape: [], data: [k.use_bias_correction_kl ? 1 : 0], dtype: 'bool' },
  };
  for (const [name, v] of Object.entries(objectiveScalars(c))) feeds[name] = { shape: [], data: [v] };
  if (k.off_policy_mask_threshold !== null) feeds[offPolicyInput] = { shape: [], data: [k.off_policy_mask_threshold] };
  return { g, feeds };
}

const rows = (flat: ArrayLike<number>): number[][] =>
  mask.map((_, r) => Array.from({ length: LEN }, (_, t) => Number(flat[r * LEN + t])));

export async function ours(
  k: Case,
  backend: ReturnType<typeof createNodeBackend>,
  ent = entropy,
): Promise<{ f32: Side; f64: Side }> {
  const { g, feeds } = ourGraph(k, ent);
  const ref: Record<string, NDArray> = {};
  for (const [name, v] of Object.entries(feeds)) ref[name] = nd(v.shape, v.data);
  const [loss64, token64, grad64] = evaluate(g, ref);
  const session = await backend.createSession(compile(g));
  const t: Record<string, ReturnType<typeof backend.tensor>> = {};
  for (const [name, v] of Object.entries(feeds)) t[name] = backend.tensor(v.dtype ?? 'float32', v.data, v.shape);
  const out = await session.run(t);
  const read = async (name: string) => (await backend.read(out[name]!)) as Float32Array;
  // TRL keeps the entropy bonus out of per_token_loss (it subtracts it from the aggregated loss): add
  // ours back before comparing the per-token terms
  const withoutEntropy = (t: number[][]) => t.map((row, r) => row.map((v, i) => v + k.entropy_coef * ent[r]![i]!));
  return {
    f64: { loss: loss64!.data[0]!, perToken: withoutEntropy(rows(token64!.data)), grad: rows(grad64!.data) },
    f32: {
      loss: (await read('loss'))[0]!,
      perToken: withoutEntropy(rows(await read('token_loss'))),
      grad: rows(await read('dlogp')),
    },
  };
}

/** max |ours - theirs| / max |theirs| over the completion's tokens (the whole tensor for the gradient). */
function relDiff(a: number[][], b: number[][], onMask: boolean): number {
  let num = 0;
  let den = 0;
  a.forEach((row, r) =>
    row.forEach((v, t) => {
      if (onMask && !mask[r]![t]) return;
      num = Math.max(num, Math.abs(v - b[r]![t]!));
      den = Math.max(den, Math.abs(b[r]![t]!));
    }),
  );
  return den > 0 ? num / den : num;
}

export interface ParityRow {
  label: string;
  loss_type: string;
  importance_sampling_level: string;
  /** onnxruntime-node (float32) against TRL in float32. */
  float32: { loss: number; per_token: number; grad: number };
  /** Our graph in the float64 reference interpreter against TRL in float64. */
  float64: { loss: number; per_token: number; grad: number };
}

export function compare(a: Side, b: Side): ParityRow['float32'] {
  return {
    loss: Math.abs(a.loss - b.loss) / Math.max(Math.abs(b.loss), 1e-30),
    per_token: relDiff(a.perToken, b.perToken, true),
    grad: relDiff(a.grad, b.grad, false),
  };
}
