/**
 * One training run, the same pipeline for `rlvr train` (src/cli/training-run.ts) and the worker's
 * session (workers/training-session.ts). It does five things:
 *   1. resolve the run config: the layers of src/rl/resolve-config.ts (the one resolver; its comment
 *      gives their order), over the base checkpoint's recipe;
 *   2. load the base from a manifest and weight bytes (no file system: the CLI reads files, the
 *      worker fetches them, both hand the bytes in);
 *   3. schedule held-out evaluations by one rule (evaluationDue);
 *   4. build the manifest of the trained checkpoint;
 *   5. snapshot and restore everything a run needs to continue exactly (what the worker autosaves).
 *
 * Steps are numbered by updates done: step 0 is the base policy (its evaluation comes before any
 * update), the first update is step 1, and a metrics row, its rollouts and an evaluation measured
 * right after it all carry the same number.
 */
import type { Backend } from '../engine/backend.ts';
import {
  loadWeights,
  recipeTemperature,
  saveWeights,
  tokenizerSpec,
  validateManifest,
  type Manifest,
} from '../model/checkpoint.ts';
import { modelPresets, type ModelPresetId } from '../model/config.ts';
import { initAdapters, parseTargets, validateLora } from '../model/lora.ts';
import { Policy, type Weights } from '../model/policy.ts';
import { codecOf } from '../model/hf-codec.ts';
import type { TokenizerFiles } from '../model/text-codec.ts';
import { layoutFor } from '../model/task-layout.ts';
import { initParams, parameterCount, paramSpecs } from '../model/transformer.ts';
import { heldOutSamples, validateConfig, type RunConfig } from './config.ts';
import { passAt1StandardError } from './passk.ts';
import { Trainer, type StepMetrics, type StepResult, type TrainerState } from './trainer.ts';

/** A held-out pass@k measurement. */
export interface EvalPoint {
  /** Updates done when it was measured (0 = the base policy). */
  step: number;
  pass_at_k: Record<string, number>;
  /**
   * Standard error of pass_at_k['1'] over the held-out prompts (passAt1StandardError); absent in runs saved before it
   * was recorded.
   */
  pass1_se?: number;
}

/** The weights a run starts from, with their manifest. */
export interface RunBase {
  manifest: Manifest;
  weights: Weights;
  /**
   * An imported model's own tokenizer files (text-codec.ts), by the names its manifest gives; absent for the
   * characters.
   */
  tokenizerFiles?: TokenizerFiles;
}

/**
 * 2. A base checkpoint from its manifest (parsed JSON, validated here), its safetensors bytes and, for
 * a model with its own tokenizer, the tokenizer's files (checked here: the codec is built once).
 */
export function loadBase(manifestJson: unknown, weightBytes: Uint8Array, tokenizerFiles?: TokenizerFiles): RunBase {
  const manifest = validateManifest(manifestJson);
  const weights = loadWeights(manifest, weightBytes);
  codecOf(manifest, tokenizerFiles);
  return { manifest, weights, ...(manifest.tokenizer.kind === 'hf' ? { tokenizerFiles } : {}) };
}

/** A freshly initialised model and its manifest (nothing measured; it was never trained). */
export function freshBase(
  model: ModelPresetId,
  seed: number,
  task: string,
  difficulty: Record<string, number | string>,
): RunBase {
  const m = modelPresets[model];
  const manifest: Manifest = {
    format: 'rlvr-playground-checkpoint',
    version: 1,
    name: `${model}-random-${seed}`,
    weights: 'model.safetensors',
    model: m,
    layout: layoutFor([{ task, difficulty }], 8, 50),
    tokenizer: tokenizerSpec,
    tasks: [],
    training: {
      kind: 'pretrain',
      command: `initParams(modelPresets.${model}, ${seed}) (random initialisation, untrained)`,
      seed,
      steps: 0,
      trained_on: [],
    },
    created: new Date().toISOString().slice(0, 10),
    parameters: parameterCount(m),
  };
  return { manifest, weights: initParams(m, seed) };
}

/**
 * The base with LoRA adapters when the config asks for them (lora_r > 0): the model config gets
 * `lora` (PEFT's r, lora_alpha, target_modules), the weights fresh adapters (A kaiming-uniform seeded
 * by the run's seed, B zero, so the policy starts equal to the base), and the base weights are frozen
 * in every training graph. A base that already carries the same adapters (a restored snapshot) is kept;
 * one with other adapters is refused.
 */
export function withLora(base: RunBase, config: RunConfig): RunBase {
  const model = base.manifest.model;
  if (config.lora_r === 0) {
    if (model.lora)
      throw new Error(
        `the checkpoint carries LoRA adapters (r = ${model.lora.r}); set lora_r = ${model.lora.r} to ` +
          'continue training them',
      );
    return base;
  }
  const lora = { r: config.lora_r, alpha: config.lora_alpha, targets: parseTargets(config.target_modules) };
  if (model.lora) {
    if (JSON.stringify(model.lora) !== JSON.stringify(lora))
      throw new Error(
        `the checkpoint carries LoRA adapters ${JSON.stringify(model.lora)}` +
          `, the config asks for ${JSON.stringify(lora)}`,
      );
    return base;
  }
  const withAdapters = { ...model, lora };
  validateLora(withAdapters, lora);
  const { lora: _drop, ...plain } = withAdapters;
  const weights = new Map(base.weights);
  for (const [k, a] of initAdapters(withAdapters, paramSpecs(plain), config.seed)) weights.set(k, a);
  return {
    ...base,
    manifest: { ...base.manifest, model: withAdapters, parameters: parameterCount(withAdapters) },
    weights,
  };
}

/**
 * 3. The one evaluation rule: with eval_every > 0, held-out pass@k is measured at step 0 (the base,
 * before any update), after every eval_every-th update, and after the last update of a step budget
 * (`budget` 0: none). eval_every = 0 never evaluates.
 */
export function evaluationDue(evalEvery: number, stepsDone: number, budget: number): boolean {
  if (evalEvery <= 0) return false;
  return stepsDone === 0 || stepsDone % evalEvery === 0 || (budget > 0 && stepsDone === budget);
}

/** 5. Everything needed to continue a run exactly where it was (JSON-safe but for the byte arrays). */
export interface RunSnapshotCore {
  config: RunConfig;
  /** tokenizerFiles: a model with its own tokenizer (RunBase). */
  base: { manifest: Manifest; bytes: Uint8Array; tokenizerFiles?: TokenizerFiles };
  current: { bytes: Uint8Array; optimizer: { step: number; m: Uint8Array; v: Uint8Array } };
  /**
   * Trainer.getState(): counters, the non-finite streak and the difficulty ladder (older snapshots have only the
   * counters).
   */
  trainer: TrainerState;
  /** The reference (KL anchor) weights as safetensors; absent in older snapshots (then the base weights are used). */
  reference?: Uint8Array | null;
  metrics: StepMetrics[];
  evals: EvalPoint[];
}

/** Callbacks of one advance, for progress displays. */
export interface AdvanceHooks {
  onEvalStart?: () => void;
  onEvalProgress?: (done: number, total: number) => void;
  onEval?: (point: EvalPoint) => void;
  onUpdateStart?: () => void;
}

/** A policy and its trainer over a base checkpoint, with the run's metric and evaluation history. */
export class TrainingRun {
  metrics: StepMetrics[] = [];
  evals: EvalPoint[] = [];

  private constructor(
    readonly policy: Policy,
    readonly trainer: Trainer,
    public base: RunBase,
  ) {}

  /** A new run at step 0 on `backend` (the policy is disposed again if the trainer cannot be built). */
  static async create(backend: Backend, plainBase: RunBase, config: RunConfig): Promise<TrainingRun> {
    const base = withLora(plainBase, config);
    const policy = await Policy.create(backend, base.manifest.model, base.manifest.layout, base.weights);
    policy.codec = codecOf(base.manifest, base.tokenizerFiles);
    try {
      return new TrainingRun(policy, await Trainer.create(policy, config), base);
    } catch (e) {
      await policy.dispose().catch(() => undefined);
      throw e;
    }
  }

  /** A run continued from a snapshot: same weights, AdamW moments, reference, counters and history. */
  static async restore(backend: Backend, s: RunSnapshotCore): Promise<TrainingRun> {
    const base = loadBase(s.base.manifest, s.base.bytes, s.base.tokenizerFiles);
    const run = await TrainingRun.create(backend, base, validateConfig(s.config));
    try {
      const m = run.base.manifest;
      if (s.reference) {
        // The KL anchor as it was (a ProRL reset may have moved it off the base weights).
        run.policy.setWeights(loadWeights(m, s.reference));
        await run.policy.resetReference();
      }
      const o = s.current.optimizer;
      run.policy.setWeights(loadWeights(m, s.current.bytes), {
        step: o.step,
        m: loadWeights(m, o.m),
        v: loadWeights(m, o.v),
      });
      run.trainer.restoreState(s.trainer);
    } catch (e) {
      await run.dispose();
      throw e;
    }
    // Snapshots saved before steps were numbered by updates done start their metrics at step 0.
    const shift = s.metrics[0]?.step === 0 ? 1 : 0;
    run.metrics = s.metrics.map((m) => (shift ? { ...m, step: m.step + shift } : m));
    run.evals = s.evals.slice();
    return run;
  }

  get config(): RunConfig {
    return this.trainer.config;
  }

  /** Updates done. */
  get step(): number {
    return this.trainer.step;
  }

  /** Held-out pass@k of the policy now, recorded at the current step. */
  async evaluate(onProgress?: (done: number, total: number) => void): Promise<EvalPoint> {
    const res = await this.trainer.evaluate(undefined, undefined, onProgress);
    const se = passAt1StandardError(res.correct, res.n);
    const point: EvalPoint = {
      step: this.trainer.step,
      pass_at_k: res.pass_at_k,
      ...(Number.isFinite(se) ? { pass1_se: se } : {}),
    };
    this.evals.push(point);
    return point;
  }

  /** Evaluates when the rule says so and this step has not been measured yet. */
  async evaluateIfDue(budget: number, hooks: AdvanceHooks = {}): Promise<EvalPoint | null> {
    const step = this.trainer.step;
    if (!evaluationDue(this.config.eval_every, step, budget) || this.evals.some((e) => e.step === step)) return null;
    hooks.onEvalStart?.();
    const point = await this.evaluate(hooks.onEvalProgress);
    hooks.onEval?.(point);
    return point;
  }

  /**
   * One update, with the evaluations the rule puts around it (the base's before the first update).
   * `update` replaces the trainer's step (the session's fault injection uses it).
   */
  async advance(
    budget: number,
    hooks: AdvanceHooks = {},
    update: () => Promise<StepResult> = () => this.trainer.trainStep(),
  ): Promise<{ result: StepResult; evals: EvalPoint[] }> {
    const evals: EvalPoint[] = [];
    const before = await this.evaluateIfDue(budget, hooks);
    if (before) evals.push(before);
    hooks.onUpdateStart?.();
    const result = await update();
    this.metrics.push(result.metrics);
    const after = await this.evaluateIfDue(budget, hooks);
    if (after) evals.push(after);
    return { result, evals };
  }

  /** 4. The manifest of the checkpoint this run has trained so far (its latest evaluation as pass@k). */
  trainedManifest(name: string, command: string): Manifest {
    const c = this.config;
    const last = this.evals[this.evals.length - 1];
    const { rl_gain: _gain, ...inherited } = this.base.manifest;
    const difficulty = this.trainer.difficulty;
    // Held-out evaluations of this checkpoint (and RL from it) default to the difficulty and the
    // temperature its run trained at, not the base recipe's when the run set its own.
    const sampledAt = recipeTemperature(this.base.manifest) !== c.temperature ? { temperature: c.temperature } : {};
    return {
      ...inherited,
      recipe: { ...inherited.recipe, difficulty, ...sampledAt },
      name,
      layout: this.policy.layout,
      tasks: [
        {
          task: c.task,
          difficulty,
          pass_at_k: last?.pass_at_k ?? {},
          eval: { prompts: c.eval_prompts, n: heldOutSamples(c), seed: c.seed },
        },
      ],
      training: {
        kind: 'rl',
        command,
        seed: c.seed,
        steps: this.trainer.step,
        trained_on: [{ task: c.task, difficulty }],
      },
      created: new Date().toISOString().slice(0, 10),
    };
  }

  /** The current weights as safetensors bytes. */
  async weightBytes(name: string): Promise<Uint8Array> {
    return saveWeights(this.base.manifest.model, await this.policy.getWeights(), { name });
  }

  /** 5. Everything restore() needs. */
  async snapshot(): Promise<RunSnapshotCore> {
    const m = this.base.manifest.model;
    const opt = await this.policy.getOptimizerState();
    const ref = await this.policy.getReferenceWeights();
    return {
      config: this.config,
      base: {
        manifest: this.base.manifest,
        bytes: saveWeights(m, this.base.weights),
        ...(this.base.tokenizerFiles ? { tokenizerFiles: this.base.tokenizerFiles } : {}),
      },
      current: {
        bytes: saveWeights(m, await this.policy.getWeights()),
        optimizer: { step: opt.step, m: saveWeights(m, opt.m), v: saveWeights(m, opt.v) },
      },
      trainer: this.trainer.getState(),
      reference: ref ? saveWeights(m, ref) : null,
      metrics: this.metrics.slice(),
      evals: this.evals.slice(),
    };
  }

  async dispose(): Promise<void> {
    await this.policy.dispose();
  }
}
