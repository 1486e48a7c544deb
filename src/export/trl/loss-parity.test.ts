// Parity of our objective graph with TRL 1.13's own loss code. One fixed batch (log-probs, old and
// reference log-probs, a completion mask with ragged lengths, one advantage per completion) goes to
// policyObjective (src/rl/objective.ts, the graph the trainer runs) on onnxruntime-node and in the
// float64 reference interpreter, and to GRPOTrainer._compute_loss itself (src/export/trl/python/
// loss_parity.py calls TRL's code, in float32 and float64), for every loss_type TRL 1.13 accepts at
// both importance-sampling levels. Compared: the loss, the per-token terms (TRL's per_token_loss on
// the completion's tokens) and d loss / d log-probs (torch autograd against our graph's autodiff),
// each within 1e-5 relative. The differences go to docs/trl-loss-parity.json, which
// scripts/parity-table.mjs turns into docs/parity.md's table.
//
// Without a Python that imports TRL 1.13 the test is skipped, loudly: a banner on stderr and a
// skipped test whose name says why (bash scripts/setup-python.sh makes .venv-py).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { gradients } from '../../engine/autodiff.ts';
import { createNodeBackend } from '../../engine/backend-node.ts';
import { compile } from '../../engine/compile.ts';
import { Graph } from '../../engine/graph.ts';
import { evaluate, nd, type NDArray } from '../../engine/reference.ts';
import { aggregationWeights, batchWeights, computeAdvantages } from '../../rl/advantages.ts';
import { defaultConfig, type RunConfig } from '../../rl/config.ts';
import { trlLossTypeNames } from '../../rl/loss-types.ts';
import { appliedEntropyCoef, initialEntropyControl, nextEntropyControl } from '../../rl/adaptive-entropy.ts';
import {
  objectiveForm,
  objectiveInputs,
  objectiveOptions,
  objectiveScalars,
  offPolicyInput,
  policyObjective,
} from '../../rl/objective.ts';
import { Rng } from '../../util/rng.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PYTHON = process.env.TRL_PYTHON ?? join(ROOT, '.venv-py/bin/python');
const SCRIPT = join(ROOT, 'src/export/trl/python/loss_parity.py');
export const PARITY_JSON = join(ROOT, 'docs/trl-loss-parity.json');
const TOL = 1e-5;

/** The loss types TRL 1.13's GRPOConfig accepts (the loss-type table marks them), and its importance-sampling levels. */
const TRL_LOSS_TYPES = trlLossTypeNames;
const LEVELS = ['token', 'sequence'] as const;

function trlVersion(): string | null {
  // In a fresh clone .venv-py does not exist yet: make it (or wait for the test file that is making it;
  // the script takes a lock), so CI runs the parity instead of skipping it. Exit 3: no wheels here.
  if (!process.env.TRL_PYTHON)
    spawnSync('bash', ['scripts/setup-python.sh'], { cwd: ROOT, encoding: 'utf8', timeout: 600_000 });
  if (!existsSync(PYTHON)) return null;
  const r = spawnSync(PYTHON, ['-c', 'import trl, torch, accelerate; print(trl.__version__)'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

const version = trlVersion();
const missing =
  version === null
    ? `no Python with trl, torch and accelerate at ${PYTHON}`
    : !version.startsWith('1.13.')
      ? `${PYTHON} has TRL ${version}, not 1.13`
      : null;
if (missing) {
  const line = '!'.repeat(100);
  console.warn(
    `\n${line}\n!! TRL LOSS PARITY SKIPPED: ${missing}.\n!! Run \`bash scripts/setup-python.sh\` (or set TRL_PYTHON) to check our objectives against TRL 1.13's own loss code.\n${line}\n`,
  );
}

// The batch: 8 completions, up to 6 tokens, ragged lengths (one of a single token); values off the
// mask are random too, so masking is checked. Everything is rounded to float32 first: both sides read
// the same numbers.
const ROWS = 8;
const LEN = 6;
const LENGTHS = [6, 4, 1, 5, 6, 3, 2, 6];
const ADVANTAGES = [1.2, -0.8, 0.5, -1.1, 0, 0.9, -0.4, 0.3];
const rng = new Rng(7);
const f32 = (x: number) => Math.fround(x);
const mask: number[][] = LENGTHS.map((n) => Array.from({ length: LEN }, (_, t) => (t < n ? 1 : 0)));
const oldLogp = mask.map((m) => m.map(() => f32(-0.2 - 2 * rng.next())));
// log-ratios within ±0.5: ratios in [0.61, 1.65], both sides of every clip range below
const logp = oldLogp.map((row) => row.map((o) => f32(o + (rng.next() - 0.5))));
const refLogp = oldLogp.map((row) => row.map((o) => f32(o + 0.6 * (rng.next() - 0.5))));
const entropy = mask.map((m) => m.map(() => f32(0.2 + 1.5 * rng.next())));

interface Case {
  label: string;
  loss_type: RunConfig['loss_type'];
  importance_sampling_level: RunConfig['importance_sampling_level'];
  epsilon: number;
  epsilon_high: number;
  delta: number | null;
  beta: number;
  use_bias_correction_kl: boolean;
  entropy_coef: number;
  sapo_temperature_pos: number;
  sapo_temperature_neg: number;
  vespo_k_pos: number;
  vespo_lambda_pos: number;
  vespo_k_neg: number;
  vespo_lambda_neg: number;
  max_completion_length: number;
  off_policy_mask_threshold: number | null;
  use_adaptive_entropy?: boolean;
  entropy_coef_min?: number;
  entropy_coef_max?: number;
  entropy_coef_delta?: number;
  entropy_target?: number;
  /** Adaptive entropy: one optimizer step per scale on the same trainer, the batch's entropies × the scale. */
  entropy_scales?: number[];
  /** Advantages from reward functions apart: each side computes its own (TRL: its own code for them). */
  rewards_per_func?: number[][];
  function_weights?: number[];
  multi_objective_aggregation?: RunConfig['multi_objective_aggregation'];
  scale_rewards?: RunConfig['scale_rewards'];
  num_generations?: number;
  /** The batch in this many micro-batches, gradient_accumulation_steps of them per optimizer step. */
  steps_per_generation?: number;
  gradient_accumulation_steps?: number;
}

// Three reward functions (correctness, format, partial) on two groups of four; the second group's
// correctness is constant, so normalising each function first differs from normalising the sum.
const FUNCTION_WEIGHTS = [0.9, 0.1, 0.3];
const REWARDS_PER_FUNC = [
  [1, 1, 0.5],
  [0, 1, 0.25],
  [0, 0, 0],
  [1, 1, 1],
  [1, 1, 0.8],
  [1, 0, 0.6],
  [1, 1, 0.9],
  [1, 1, 1],
];

/** Our advantages of a case with reward functions apart (computeAdvantages, as the trainer calls it). */
function ourAdvantages(k: Case): number[] {
  const G = k.num_generations!;
  const groups = (xs: number[][]) => Array.from({ length: ROWS / G }, (_, g) => xs.slice(g * G, (g + 1) * G));
  const values = groups(k.rewards_per_func!);
  const sums = values.map((g) => g.map((v) => v.reduce((a, x, f) => a + x * k.function_weights![f]!, 0)));
  const c = {
    ...defaultConfig,
    scale_rewards: k.scale_rewards!,
    multi_objective_aggregation: k.multi_objective_aggregation!,
  };
  return computeAdvantages(
    sums,
    sums.map((g) => g.map(() => false)),
    c,
    undefined,
    { weights: k.function_weights!, values },
  ).flat();
}

function cases(): Case[] {
  const base = {
    epsilon: 0.2,
    epsilon_high: 0.28,
    delta: null,
    beta: 0.04,
    use_bias_correction_kl: true, // TRL's default
    entropy_coef: 0,
    sapo_temperature_pos: defaultConfig.sapo_temperature_pos,
    sapo_temperature_neg: defaultConfig.sapo_temperature_neg,
    vespo_k_pos: defaultConfig.vespo_k_pos,
    vespo_lambda_pos: defaultConfig.vespo_lambda_pos,
    vespo_k_neg: defaultConfig.vespo_k_neg,
    vespo_lambda_neg: defaultConfig.vespo_lambda_neg,
    max_completion_length: 8,
    off_policy_mask_threshold: null,
  };
  const out: Case[] = [];
  for (const lt of TRL_LOSS_TYPES) {
    for (const level of LEVELS) {
      // cispo's epsilon_high is the cap ε_max on the ratio itself: 1.1 makes it bind on some tokens
      out.push({
        ...base,
        label: '',
        loss_type: lt,
        importance_sampling_level: level,
        ...(lt === 'cispo' ? { epsilon_high: 1.1 } : {}),
      });
    }
  }
  out.push({
    ...base,
    label: 'delta = 1.3 (two-sided clip)',
    loss_type: 'grpo',
    importance_sampling_level: 'token',
    delta: 1.3,
  });
  out.push({
    ...base,
    label: 'use_bias_correction_kl = False',
    loss_type: 'grpo',
    importance_sampling_level: 'token',
    use_bias_correction_kl: false,
  });
  out.push({
    ...base,
    label: 'use_bias_correction_kl = False',
    loss_type: 'grpo',
    importance_sampling_level: 'sequence',
    use_bias_correction_kl: false,
  });
  // TRL's entropy bonus is coef × the token mean of the entropy whatever the loss_type; ours weighs each
  // token's entropy as its loss: the same where the loss is a token mean over the batch
  for (const lt of ['bnpo', 'dapo', 'cispo', 'vespo'] as const)
    out.push({
      ...base,
      label: 'entropy_coef = 0.01',
      loss_type: lt,
      importance_sampling_level: 'token',
      entropy_coef: 0.01,
      ...(lt === 'cispo' ? { epsilon_high: 1.1 } : {}),
    });
  out.push({ ...base, label: 'beta = 0 (no KL term)', loss_type: 'dapo', importance_sampling_level: 'token', beta: 0 });
  out.push({
    ...base,
    label: 'sapo_temperature_pos = 2, _neg = 0.5',
    loss_type: 'sapo',
    importance_sampling_level: 'token',
    sapo_temperature_pos: 2,
    sapo_temperature_neg: 0.5,
  });
  out.push({
    ...base,
    label: 'vespo k = 1.5 / 2.5, lambda = 4 / 1',
    loss_type: 'vespo',
    importance_sampling_level: 'token',
    vespo_k_pos: 1.5,
    vespo_lambda_pos: 4,
    vespo_k_neg: 2.5,
    vespo_lambda_neg: 1,
  });
  // the off-policy sequence mask drops some negative-advantage completions of this batch (checked below)
  for (const [lt, level] of [
    ['grpo', 'token'],
    ['dapo', 'sequence'],
    ['cispo', 'token'],
    ['sapo', 'token'],
    ['vespo', 'token'],
  ] as const) {
    out.push({
      ...base,
      label: `off_policy_mask_threshold = ${OFF_POLICY}`,
      loss_type: lt,
      importance_sampling_level: level,
      off_policy_mask_threshold: OFF_POLICY,
      ...(lt === 'cispo' ? { epsilon_high: 1.1 } : {}),
    });
  }
  // TRL's adaptive entropy controller over seven optimizer steps: entropies (× 1 or × 1/8) above and
  // below the target move the coefficient up and down, against both of its bounds; the bonus applies
  // only after a step at or below the target. Token-mean aggregations, where the bonus is the same.
  const adaptive = {
    use_adaptive_entropy: true,
    entropy_coef: 0.012,
    entropy_coef_min: 0.005,
    entropy_coef_max: 0.035,
    entropy_coef_delta: 0.01,
    entropy_target: 0.5,
    entropy_scales: [1, 1, 0.125, 0.125, 0.125, 0.125, 1],
  };
  for (const lt of ['bnpo', 'dapo'] as const)
    out.push({
      ...base,
      ...adaptive,
      label: 'use_adaptive_entropy, 7 optimizer steps',
      loss_type: lt,
      importance_sampling_level: 'token',
    });
  const functions = { rewards_per_func: REWARDS_PER_FUNC, function_weights: FUNCTION_WEIGHTS, num_generations: 4 };
  for (const [agg, lt, level] of [
    ['normalize_then_sum', 'grpo', 'token'],
    ['normalize_then_sum', 'dapo', 'sequence'],
    ['sum_then_normalize', 'grpo', 'token'],
  ] as const) {
    const label = `multi_objective_aggregation = ${agg}${agg === 'normalize_then_sum' ? ' (GDPO)' : ', scale_rewards = group'}: advantages of 3 reward functions`;
    out.push({
      ...base,
      ...functions,
      label,
      loss_type: lt,
      importance_sampling_level: level,
      multi_objective_aggregation: agg,
      scale_rewards: 'group',
    });
  }
  // TRL's micro-batches (steps_per_generation) and gradient accumulation: each micro-batch's loss as
  // TRL normalises it, summed (one optimizer step per gradient_accumulation_steps micro-batches)
  for (const [lt, level, spg, ga] of [
    ['bnpo', 'token', 2, 2],
    ['grpo', 'token', 2, 2],
    ['dapo', 'token', 4, 2],
    ['dr_grpo', 'token', 2, 2],
    ['luspo', 'sequence', 2, 1],
    ['cispo', 'token', 2, 1],
  ] as const) {
    const label = `steps_per_generation = ${spg}, gradient_accumulation_steps = ${ga} (minibatches = ${spg / ga})`;
    out.push({
      ...base,
      label,
      loss_type: lt,
      importance_sampling_level: level,
      steps_per_generation: spg,
      gradient_accumulation_steps: ga,
      ...(lt === 'cispo' ? { epsilon_high: 1.1 } : {}),
    });
  }
  return out;
}

/** The off-policy mask threshold of the parity cases: between the batch's sequence-mean KLs. */
const OFF_POLICY = 0.005;
const seqKl = mask.map(
  (m, r) => m.reduce((a, x, t) => a + x * (oldLogp[r]![t]! - logp[r]![t]!), 0) / Math.max(1, LENGTHS[r]!),
);

interface Side {
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

async function ours(
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

function compare(a: Side, b: Side): ParityRow['float32'] {
  return {
    loss: Math.abs(a.loss - b.loss) / Math.max(Math.abs(b.loss), 1e-30),
    per_token: relDiff(a.perToken, b.perToken, true),
    grad: relDiff(a.grad, b.grad, false),
  };
}

describe('objective parity with TRL 1.13 GRPOTrainer._compute_loss', () => {
  if (missing) {
    it.skip(`SKIPPED: ${missing} (bash scripts/setup-python.sh makes .venv-py)`, () => {});
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'rlvr-loss-parity-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const all = cases();
  type TrlCall = { loss: number; per_token_loss: number[][]; grad: number[][]; entropy_coef_after?: number };
  type TrlResult = TrlCall & { steps?: TrlCall[] };
  let trl: { trl: string; torch: string; results: { float32: TrlResult; float64: TrlResult }[] } | null = null;
  const table: ParityRow[] = [];

  it('the batch exercises both clip sides, a one-token completion and a zero advantage', () => {
    const ratios = logp.flatMap((row, r) => row.map((v, t) => (mask[r]![t] ? Math.exp(v - oldLogp[r]![t]!) : 1)));
    expect(ratios.some((x) => x < 0.8)).toBe(true);
    expect(ratios.some((x) => x > 1.28)).toBe(true);
    expect(ratios.some((x) => x > 1.1)).toBe(true); // cispo's cap binds
    expect(ratios.some((x) => x > 1.02 && x < 1.1)).toBe(true); // and does not, elsewhere
    expect(LENGTHS).toContain(1);
    expect(ADVANTAGES).toContain(0);
    // the off-policy mask drops a negative-advantage completion and keeps another, and one above the
    // threshold has a positive advantage (kept)
    const dropped = (r: number) => ADVANTAGES[r]! < 0 && seqKl[r]! > OFF_POLICY;
    expect(ADVANTAGES.some((_, r) => dropped(r))).toBe(true);
    expect(ADVANTAGES.some((a, r) => a < 0 && !dropped(r))).toBe(true);
    expect(ADVANTAGES.some((a, r) => a > 0 && seqKl[r]! > OFF_POLICY)).toBe(true);
  });

  it('TRL runs its own loss code on the batch', () => {
    const batchPath = join(dir, 'batch.json');
    const outPath = join(dir, 'trl.json');
    writeFileSync(
      batchPath,
      JSON.stringify({
        tmp: join(dir, 'trl-out'),
        logp,
        old_logp: oldLogp,
        ref_logp: refLogp,
        entropy,
        mask,
        advantages: ADVANTAGES,
        cases: all.map(({ label: _label, ...k }) => k),
      }),
    );
    const r = spawnSync(PYTHON, [SCRIPT, batchPath, outPath], {
      encoding: 'utf8',
      env: { ...process.env, CUDA_VISIBLE_DEVICES: '' },
    });
    expect(r.status, `${SCRIPT} failed:\n${r.stderr}`).toBe(0);
    trl = JSON.parse(readFileSync(outPath, 'utf8'));
    expect(trl!.trl).toMatch(/^1\.13\./);
    expect(trl!.results).toHaveLength(all.length);
  }, 600_000); // TRL runs every case twice (float32, float64): minutes on a loaded machine

  const backend = createNodeBackend();
  all.forEach((k, i) => {
    it(`loss_type=${k.loss_type} importance_sampling_level=${k.importance_sampling_level}${k.label ? ` (${k.label})` : ''}: loss, per-token terms and d loss / d logp within ${TOL} relative`, async () => {
      expect(trl, 'TRL did not run').not.toBeNull();
      const theirs = trl!.results[i]!;
      const side = (x: { loss: number; per_token_loss: number[][]; grad: number[][] }): Side => ({
        loss: x.loss,
        perToken: x.per_token_loss,
        grad: x.grad,
      });
      let row: ParityRow;
      if (k.rewards_per_func) {
        // the advantages themselves, in float64: ours (computeAdvantages) against TRL's code, within 1e-7
        // (TRL's nanstd takes Bessel's correction count / (count − 1) of integer tensors: a float32 4/3)
        const a = ourAdvantages(k);
        const b = (theirs.float64 as TrlResult & { advantages: number[] }).advantages;
        expect(Math.max(...a.map((x, r) => Math.abs(x - b[r]!)))).toBeLessThan(1e-7);
        if (k.multi_objective_aggregation === 'normalize_then_sum') {
          // GDPO moves the constant-correctness group's advantages off those of the summed rewards
          const summed = ourAdvantages({ ...k, multi_objective_aggregation: 'sum_then_normalize' });
          expect(Math.max(...a.map((x, r) => Math.abs(x - summed[r]!)))).toBeGreaterThan(0.1);
        }
      }
      if (!k.entropy_scales) {
        const o = await ours(k, backend);
        row = {
          label: k.label,
          loss_type: k.loss_type,
          importance_sampling_level: k.importance_sampling_level,
          float32: compare(o.f32, side(theirs.float32)),
          float64: compare(o.f64, side(theirs.float64)),
        };
      } else {
        // each optimizer step: our controller's coefficient into our graph, then the step's entropy moves it
        const knobs: RunConfig = { ...defaultConfig, ...k };
        let control = initialEntropyControl(knobs);
        const worst = (a: ParityRow['float32'], b: ParityRow['float32']) => ({
          loss: Math.max(a.loss, b.loss),
          per_token: Math.max(a.per_token, b.per_token),
          grad: Math.max(a.grad, b.grad),
        });
        let f32w = { loss: 0, per_token: 0, grad: 0 };
        let f64w = { loss: 0, per_token: 0, grad: 0 };
        const applied: number[] = [];
        for (const [n, scale] of k.entropy_scales.entries()) {
          const ent = entropy.map((row) => row.map((e) => f32(e * scale)));
          applied.push(appliedEntropyCoef(control, knobs));
          const o = await ours({ ...k, entropy_coef: applied[n]! }, backend, ent);
          f32w = worst(f32w, compare(o.f32, side(theirs.float32.steps![n]!)));
          f64w = worst(f64w, compare(o.f64, side(theirs.float64.steps![n]!)));
          const tokens = mask.flat().reduce((a, b) => a + b, 0);
          control = nextEntropyControl(
            control,
            ent.reduce((a, row, r) => a + row.reduce((x, e, t) => x + e * mask[r]![t]!, 0), 0) / tokens,
            knobs,
          );
          expect(control.coef, `step ${n + 1}: the coefficient after it`).toBeCloseTo(
            theirs.float64.steps![n]!.entropy_coef_after!,
            12,
          );
        }
        // the case did exercise the controller: no bonus at first, then bonuses that rose to the cap and fell
        expect(applied[0]).toBe(0);
        expect(Math.max(...applied)).toBeCloseTo(knobs.entropy_coef_max, 12);
        expect(new Set(applied.map((x) => x.toFixed(6))).size).toBeGreaterThan(3);
        row = {
          label: k.label,
          loss_type: k.loss_type,
          importance_sampling_level: k.importance_sampling_level,
          float32: f32w,
          float64: f64w,
        };
      }
      table.push(row);
      for (const prec of ['float32', 'float64'] as const) {
        for (const [what, d] of Object.entries(row[prec]))
          expect(d, `${prec} ${what}: ours vs TRL, max relative difference`).toBeLessThan(TOL);
      }
    });
  });

  it("writes the differences for docs/parity.md's table (scripts/parity-table.mjs)", () => {
    expect(table).toHaveLength(all.length);
    writeFileSync(
      PARITY_JSON,
      JSON.stringify({ trl: trl!.trl, torch: trl!.torch, tolerance: TOL, rows: table }, null, 2) + '\n',
    );
  });
});
