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
import type { Layout } from '../src/model/layout.ts';
import { Policy, type Weights } from '../src/model/policy.ts';
import { encode, tokenizerSpec } from '../src/model/tokenizer.ts';
import type { RunConfig } from '../src/rl/config.ts';
import { buildRlGraph, type ObjectiveFeeds } from '../src/rl/objective.ts';
import { Trainer, trainSeed } from '../src/rl/trainer.ts';
import { adamSettings } from '../src/rl/update-passes.ts';
import { getTaskFamily } from '../src/tasks/registry.ts';
import { Rng } from '../src/util/rng.ts';
import { prepare, samplingRows, type PreparedBatch, type UpdateBatch } from './batches.ts';

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
  /** The session kinds that bake the frozen base (Policy.residentKinds); absent: the backend's default. */
  resident?: string[];
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
      if (fixed.resident) policy.residentKinds = new Set(fixed.resident);
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
    return (
      `rl:${b.rows}x${b.len}:u${this.prepared!.shared.distinct}:${c.adam_beta1}:${c.adam_beta2}:${c.weight_decay}` +
      `:${c.max_grad_norm}`
    );
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
    const adam = adamSettings(c);
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
