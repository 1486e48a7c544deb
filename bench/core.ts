/**
 * What the benchmark measures, written once against the Backend interface so the same code runs in
 * Node (onnxruntime-node) and in the browser bench worker (onnxruntime-web WASM / WebGPU):
 *   sample  Policy.sample: G×P completions with the KV cache
 *   update  Policy.train with buildRlGraph: scoring + GRPO loss + backward + AdamW on a fixed batch
 *   step    Trainer.trainStep: sample + verify + update, exactly as a training run does it
 * No DOM and no Node APIs here.
 */
import type { Backend, DeviceTensor } from '../src/engine/backend.ts';
import type { ModelConfig } from '../src/model/config.ts';
import {
  fitCompletions,
  pack,
  predictingColumn,
  promptGroups,
  splitShared,
  totalLen,
  type Layout,
  type SharedBatch,
} from '../src/model/layout.ts';
import { Policy, type Weights } from '../src/model/policy.ts';
import { encode } from '../src/model/tokenizer.ts';
import { tokenizerSpec } from '../src/model/tokenizer.ts';
import { aggregationWeights, computeAdvantages } from '../src/rl/advantages.ts';
import { defaultConfig, validateConfig, type RunConfig } from '../src/rl/config.ts';
import { buildRlGraph, type ObjectiveFeeds } from '../src/rl/objective.ts';
import { Trainer, trainSeed } from '../src/rl/trainer.ts';
import { getTaskFamily } from '../src/tasks/registry.ts';
import { Rng } from '../src/util/rng.ts';

/** The run config every engine uses: the defaults (P=8 prompts × G=8 generations, 48-token cap, GRPO) on arithmetic. */
export function benchRunConfig(difficulty: Record<string, number | string>): RunConfig {
  return validateConfig({ ...defaultConfig, task: 'arithmetic', difficulty, seed: 0 });
}

/** Seeds of the sampling benchmark's prompts (away from training and evaluation seeds). */
const SAMPLE_SEED = 30_000_000;

/** The P prompts of the sampling benchmark, each repeated G times (row r = group floor(r / G)). */
export function samplingRows(config: RunConfig): number[][] {
  const fam = getTaskFamily(config.task);
  const prompts = Array.from({ length: config.prompts_per_step }, (_, i) =>
    encode(fam.generate(SAMPLE_SEED + i, config.difficulty).prompt),
  );
  return prompts.flatMap((p) => new Array<number[]>(config.num_generations).fill(p));
}

/**
 * One GRPO update's inputs, JSON-serialisable so the PyTorch peer and the browser get the very same
 * numbers. Grids are flattened [rows, len].
 */
export interface UpdateBatch {
  rows: number;
  len: number;
  promptLen: number;
  completionLen: number;
  prompts: number[][];
  completions: number[][];
  tokens: number[];
  positions: number[];
  key_bias: number[];
  targets: number[];
  old_logp: number[];
  advantages: number[];
  weights: number[];
  mask: number[];
  seq_len: number[];
  inv_temperature: number;
  clip_low: number;
  clip_high: number;
  /** Completion tokens in the batch (the update's token count). */
  tokens_counted: number;
  lr: number;
}

/**
 * Builds the update batch from sampled completions. Rewards are synthetic (seeded coin flips per
 * completion, so every group has signal whatever the model's accuracy) and the old log-probs are the
 * sampling-time ones shifted by a seeded ±0.3, so the ratio moves away from 1 and both clip branches
 * are exercised by the correctness check. Neither changes the amount of work.
 */
export function makeUpdateBatch(
  runLayout: Layout,
  config: RunConfig,
  prompts: number[][],
  completions: { tokens: number[]; logp: number[] }[],
  seed = 7,
): UpdateBatch {
  const rng = new Rng(seed);
  const rows = prompts.length;
  // The grid the trainer would update on: completion columns fitted to the batch, for every engine.
  const layout = fitCompletions(
    runLayout,
    completions.map((c) => c.tokens),
  );
  const len = totalLen(layout);
  const G = config.num_generations;
  const comps = completions.map((c) => c.tokens.slice(0, layout.completionLen));
  const p = pack(layout, prompts, comps);
  const rewards: number[][] = [];
  for (let g = 0; g < rows / G; g++) rewards.push(Array.from({ length: G }, () => (rng.next() < 0.5 ? 1 : 0)));
  const adv = computeAdvantages(
    rewards,
    rewards.map((r) => r.map((x) => x > 0)),
    config,
  );
  const masks = comps.map((t) => t.map(() => 1));
  const batchTokens = masks.reduce((a, m) => a + m.length, 0);
  const w = aggregationWeights(masks, config.loss_type, config.max_completion_length, batchTokens);
  const grid = () => new Array<number>(rows * len).fill(0);
  const old = grid();
  const advantages = grid();
  const weights = grid();
  const mask = grid();
  comps.forEach((t, r) => {
    for (let i = 0; i < t.length; i++) {
      const col = r * len + predictingColumn(layout, i);
      old[col] = Math.fround(completions[r]!.logp[i]! + (rng.next() - 0.5) * 0.6);
      advantages[col] = Math.fround(adv[Math.floor(r / G)]![r % G]!);
      weights[col] = Math.fround(w[r]![i]!);
      mask[col] = 1;
    }
  });
  return {
    rows,
    len,
    promptLen: layout.promptLen,
    completionLen: layout.completionLen,
    prompts,
    completions: comps,
    tokens: Array.from(p.tokens, Number),
    positions: Array.from(p.positions, Number),
    key_bias: Array.from(p.keyBias),
    targets: Array.from(p.targets, Number),
    old_logp: old,
    advantages,
    weights,
    mask,
    seq_len: comps.map((t) => Math.max(1, t.length)),
    inv_temperature: 1 / config.temperature,
    clip_low: 1 - config.epsilon,
    clip_high: 1 + config.epsilon_high,
    tokens_counted: batchTokens,
    lr: config.learning_rate,
  };
}

/** The batch as typed arrays, converted once (outside the timed region, as the trainer's pack() is cheap). */
interface PreparedBatch {
  b: UpdateBatch;
  old: Float32Array;
  adv: Float32Array;
  weights: Float32Array;
  mask: Float32Array;
  seqLen: Float32Array;
  shared: SharedBatch;
}

function prepare(b: UpdateBatch): PreparedBatch {
  const i64 = (a: number[]) => BigInt64Array.from(a, (v) => BigInt(v));
  return {
    b,
    old: Float32Array.from(b.old_logp),
    adv: Float32Array.from(b.advantages),
    weights: Float32Array.from(b.weights),
    mask: Float32Array.from(b.mask),
    seqLen: Float32Array.from(b.seq_len),
    shared: splitShared(
      {
        rows: b.rows,
        len: b.len,
        tokens: i64(b.tokens),
        positions: i64(b.positions),
        keyBias: Float32Array.from(b.key_bias),
        targets: i64(b.targets),
      },
      b.promptLen,
      promptGroups(b.prompts),
    ),
  };
}

export interface SampleResult {
  ms: number;
  /** Tokens generated per row if no row stopped (the decode steps after the prompt). */
  genSteps: number;
  /** Tokens actually kept (each row up to and including its EOS). */
  tokens: number;
  rows: number;
}

export interface UpdateResult {
  ms: number;
  loss: number;
  gradNorm: number;
  tokens: number;
}

export interface StepResult {
  ms: number;
  sampling_ms: number;
  verify_ms: number;
  update_ms: number;
  sampled_tokens: number;
  accuracy: number;
}

export interface CheckValues {
  loss: number;
  gradNorm: number;
  logp: number[];
  entropy: number[];
}

/** The batch of the trainer's next step as the PyTorch peer needs it (same prompts, same layout). */
export interface StepBatch {
  G: number;
  prompts: number[][];
  answers: string[];
  promptLen: number;
  completionLen: number;
  temperature: number;
  clip_low: number;
  clip_high: number;
  tokenizer: { specials: readonly string[]; chars: string };
}

/**
 * A runner without a task (the Llama presets, bench/llama.ts): fixed prompt rows (synthetic token ids,
 * each prompt repeated G times) on a fixed layout, and no Trainer, so no whole step; sampling and the
 * update are measured as with a task.
 */
export interface FixedRows {
  rows: number[][];
  layout: Layout;
}

/** One engine's policy and trainer, with the three measurements. */
export class BenchRunner {
  private prepared: PreparedBatch | null = null;

  private constructor(
    readonly policy: Policy,
    private readonly trainer_: Trainer | null,
    readonly config: RunConfig,
    private readonly fixed: FixedRows | null = null,
  ) {}

  get trainer(): Trainer {
    if (!this.trainer_) throw new Error('this runner has fixed prompt rows and no trainer (no whole step)');
    return this.trainer_;
  }

  static async create(
    backend: Backend,
    model: ModelConfig,
    weights: Weights,
    config: RunConfig,
    fixed?: FixedRows,
  ): Promise<BenchRunner> {
    if (fixed) {
      const policy = await Policy.create(backend, model, fixed.layout, weights);
      return new BenchRunner(policy, null, config, fixed);
    }
    // The trainer sets the layout (task's prompt grid + max_completion_length); every measurement uses it.
    const policy = await Policy.create(
      backend,
      model,
      { promptLen: 8, completionLen: config.max_completion_length },
      weights,
    );
    const trainer = await Trainer.create(policy, config);
    return new BenchRunner(policy, trainer, config);
  }

  get layout(): Layout {
    return this.policy.layout;
  }

  async sample(
    seed: number,
  ): Promise<SampleResult & { completions: { tokens: number[]; logp: number[] }[]; prompts: number[][] }> {
    const c = this.config;
    const prompts = this.fixed?.rows ?? samplingRows(c);
    const t0 = performance.now();
    const comps = await this.policy.sample(
      prompts,
      { temperature: c.temperature, topK: c.top_k, topP: c.top_p },
      c.max_completion_length,
      new Rng(seed),
    );
    const ms = performance.now() - t0;
    return {
      ms,
      genSteps: Math.max(...comps.map((x) => x.tokens.length)),
      tokens: comps.reduce((a, x) => a + x.tokens.length, 0),
      rows: prompts.length,
      completions: comps.map((x) => ({ tokens: x.tokens, logp: x.logp })),
      prompts,
    };
  }

  setBatch(b: UpdateBatch): void {
    this.prepared = prepare(b);
  }

  private rlKey(): string {
    const c = this.config;
    const b = this.prepared!.b;
    // The trainer's session key, so the update benchmark and trainStep share one compiled graph.
    return `rl:${b.rows}x${b.len}:u${this.prepared!.shared.distinct}:${c.adam_beta1}:${c.adam_beta2}:${c.weight_decay}:${c.max_grad_norm}`;
  }

  /** One GRPO update on the fixed batch, feeds built the way Trainer.trainStep builds them. */
  async update(): Promise<UpdateResult & { values: Record<string, Float32Array> }> {
    const p = this.prepared;
    if (!p) throw new Error('update: no batch (call setBatch first)');
    const c = this.config;
    const { b } = p;
    const be = this.policy.backend;
    const t0 = performance.now();
    const shape = [b.rows, b.len];
    const f32 = (a: Float32Array): DeviceTensor => be.tensor('float32', a, shape);
    // Typed by the objective's input names (objective.ts): a name missing or misspelled does not compile.
    const objective: ObjectiveFeeds<DeviceTensor> = {
      old_logp: f32(p.old),
      ref_logp: f32(p.old),
      advantages: f32(p.adv),
      weights: f32(p.weights),
      mask: f32(p.mask),
      seq_len: be.tensor('float32', p.seqLen, [b.rows, 1]),
      clip_low: be.tensor('float32', [b.clip_low], []),
      clip_high: be.tensor('float32', [b.clip_high], []),
      delta: be.tensor('float32', [1e30], []),
      beta: be.tensor('float32', [c.beta], []),
      entropy_coef: be.tensor('float32', [c.entropy_coef], []),
      sequence_level: be.tensor('bool', [0], []),
      use_k3: be.tensor('bool', [c.kl_estimator === 'k3' ? 1 : 0], []),
      use_bias_correction_kl: be.tensor('bool', [c.use_bias_correction_kl ? 1 : 0], []),
    };
    const feeds = { ...this.policy.sharedFeeds(p.shared, b.inv_temperature), ...objective };
    const adam = {
      beta1: c.adam_beta1,
      beta2: c.adam_beta2,
      eps: 1e-8,
      weightDecay: c.weight_decay,
      maxGradNorm: c.max_grad_norm,
    };
    const res = await this.policy.train(
      this.rlKey(),
      () => buildRlGraph(this.policy.config, b.rows, p.shared.distinct, b.promptLen, b.len, adam),
      feeds,
      b.lr,
    );
    const ms = performance.now() - t0;
    return { ms, loss: res.loss, gradNorm: res.gradNorm, tokens: b.tokens_counted, values: res.values };
  }

  /** The first update doubles as the correctness check: its log-probs, loss and grad norm. */
  async checkValues(): Promise<CheckValues> {
    const r = await this.update();
    return {
      loss: r.loss,
      gradNorm: r.gradNorm,
      logp: Array.from(r.values['logp']!),
      entropy: Array.from(r.values['entropy']!),
    };
  }

  /** The prompts of the trainer's next step, for the PyTorch peer's whole step. */
  nextStepBatch(): StepBatch {
    const c = this.config;
    const fam = getTaskFamily(c.task);
    const inst = Array.from({ length: c.prompts_per_step }, (_, i) =>
      fam.generate(trainSeed(c.seed, this.trainer.promptCounter + i), this.trainer.difficulty),
    );
    return {
      G: c.num_generations,
      prompts: inst.map((x) => encode(x.prompt)),
      answers: inst.map((x) => x.answer),
      promptLen: this.layout.promptLen,
      completionLen: this.layout.completionLen,
      temperature: c.temperature,
      clip_low: 1 - c.epsilon,
      clip_high: 1 + c.epsilon_high,
      tokenizer: { specials: tokenizerSpec.specials, chars: tokenizerSpec.chars },
    };
  }

  async step(): Promise<StepResult> {
    const t0 = performance.now();
    const r = await this.trainer.trainStep();
    const ms = performance.now() - t0;
    const m = r.metrics;
    return {
      ms,
      sampling_ms: (m['time/sampling'] ?? 0) * 1000,
      verify_ms: (m['time/verify'] ?? 0) * 1000,
      update_ms: (m['time/update'] ?? 0) * 1000,
      sampled_tokens: Math.round((m['tokens_per_second/sampling'] ?? 0) * (m['time/sampling'] ?? 0)),
      accuracy: m.accuracy ?? 0,
    };
  }

  async dispose(): Promise<void> {
    await this.policy.dispose();
  }
}

/** The sampling benchmark's inputs for the PyTorch peer. */
export function samplingBatch(
  config: RunConfig,
  layout: Layout,
): { rows: number[][]; promptLen: number; completionLen: number; temperature: number } {
  return {
    rows: samplingRows(config),
    promptLen: layout.promptLen,
    completionLen: layout.completionLen,
    temperature: config.temperature,
  };
}

/**
 * The first `rows` rows (whole groups) of a batch, e.g. for the slow software WebGPU adapter. Per-row
 * values are unchanged, so log-probs compare with the full batch's; the per-token weights are rescaled
 * to the smaller batch (loss_type grpo: 1 / (sequence length × rows)).
 */
export function sliceBatch(b: UpdateBatch, rows: number): UpdateBatch {
  const n = rows * b.len;
  const scale = b.rows / rows;
  return {
    ...b,
    rows,
    prompts: b.prompts.slice(0, rows),
    completions: b.completions.slice(0, rows),
    tokens: b.tokens.slice(0, n),
    positions: b.positions.slice(0, n),
    key_bias: b.key_bias.slice(0, n),
    targets: b.targets.slice(0, n),
    old_logp: b.old_logp.slice(0, n),
    advantages: b.advantages.slice(0, n),
    weights: b.weights.slice(0, n).map((w) => Math.fround(w * scale)),
    mask: b.mask.slice(0, n),
    seq_len: b.seq_len.slice(0, rows),
    tokens_counted: b.completions.slice(0, rows).reduce((a, c) => a + c.length, 0),
  };
}
