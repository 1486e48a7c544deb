import type { Backend, DeviceTensor, Session, SessionOptions } from '../engine/backend.ts';
import type { Graph } from '../engine/graph.ts';
import { flatLength } from '../engine/optimizer.ts';
import { size } from '../engine/shape.ts';
import { Rng } from '../util/rng.ts';
import { validateModelConfig, type ModelConfig } from './config.ts';
import { buildScoreGraph, MOMENTS } from './graphs.ts';
import {
  chooseGrid,
  pack,
  predictingColumn,
  promptGroups,
  splitShared,
  totalLen,
  type Layout,
  type PackedBatch,
  type SharedBatch,
} from './layout.ts';
import { validateLora } from './lora.ts';
import { type Completion, sampleBatch } from './kv-sampler.ts';
import { compileResident, frozenWeights, RESIDENT_KINDS, sameArrays, withoutFeeds } from './resident.ts';
import type { SamplingParams } from './sampling.ts';
import { charCodec, type TextCodec } from './text-codec.ts';
import { paramSpecs, trainableSpecs } from './transformer.ts';

export type Weights = Map<string, Float32Array>;

export type { Completion } from './kv-sampler.ts';

export interface TokenScores {
  logp: number[][];
  entropy: number[][];
}

export interface TrainResult {
  loss: number;
  gradNorm: number;
  applied: boolean;
  values: Record<string, Float32Array>;
}

export interface OptimizerState {
  step: number;
  m: Weights;
  v: Weights;
}

/** Checks a weight map against the model's parameter list; the message names the first mismatch. */
export function checkWeights(c: ModelConfig, w: Weights): void {
  for (const s of paramSpecs(c)) {
    const a = w.get(s.name);
    const n = s.shape.reduce((x, y) => x * y, 1);
    if (!a) throw new Error(`weights: missing tensor "${s.name}" (shape [${s.shape}])`);
    if (a.length !== n)
      throw new Error(`weights: tensor "${s.name}" has ${a.length} values, the model needs shape [${s.shape}] (${n})`);
  }
  for (const k of w.keys())
    if (!paramSpecs(c).some((s) => s.name === k)) throw new Error(`weights: unexpected tensor "${k}" for this model`);
}

/** Compiled sessions kept per kind (see Policy.session): enough for a step's grid and the previous one. */
export const SESSIONS_PER_KIND = 2;

/**
 * The policy on a backend: parameters (and AdamW moments) live on the device; graphs are compiled
 * once per batch shape (shapes are static) and the recently used ones are kept.
 */
export class Policy {
  private params: Record<string, DeviceTensor> = {};
  /** The AdamW moments, each one flat vector over all parameters (optimizer.ts). */
  private moments: Record<string, DeviceTensor> = {};
  private ref: Record<string, DeviceTensor> | null = null;
  private sessions = new Map<string, Promise<Session>>();
  /** A LoRA policy's frozen base weights (null without LoRA), and the keys of the sessions that baked them in. */
  private frozen: ReadonlyMap<string, Float32Array> | null = null;
  private readonly baked = new Set<string>();
  /**
   * The session kinds that bake the frozen weights in instead of taking them as feeds (resident.ts); read when a
   * session is compiled.
   */
  residentKinds: ReadonlySet<string>;
  adamStep = 0;
  /**
   * Text to this model's tokens and back: the playground's characters, or an imported model's own
   * tokenizer (text-codec.ts codecOf, set by the caller that loads it). Its stop tokens end a completion.
   */
  codec: TextCodec = charCodec;
  get stopTokens(): ReadonlySet<number> {
    return this.codec.stopTokens;
  }
  /** Called after each sampled token column (tokens so far, the most allowed): long waits can show progress. */
  onDecode: ((tokens: number, maxTokens: number) => void) | null = null;

  private constructor(
    readonly backend: Backend,
    readonly config: ModelConfig,
    public layout: Layout,
  ) {
    this.residentKinds = new Set(RESIDENT_KINDS[backend.kind]);
  }

  /** Changes the sequence grid (e.g. for another task); graphs for the new shapes compile on first use. */
  setLayout(layout: Layout): void {
    if (totalLen(layout) > this.config.contextLength)
      throw new Error(
        `layout needs ${totalLen(layout)} positions (prompt ${layout.promptLen} + completion ` +
          `${layout.completionLen}), the model has ${this.config.contextLength}`,
      );
    this.layout = layout;
  }

  static async create(backend: Backend, config: ModelConfig, layout: Layout, weights: Weights): Promise<Policy> {
    validateModelConfig(config);
    if (config.lora) validateLora(config, config.lora);
    const p = new Policy(backend, config, layout);
    p.setLayout(layout);
    p.setWeights(weights);
    return p;
  }

  get names(): string[] {
    return paramSpecs(this.config).map((s) => s.name);
  }

  /** The parameters a training graph updates: all, or only the LoRA adapters (the base is frozen). */
  get trainableNames(): string[] {
    return trainableSpecs(this.config).map((s) => s.name);
  }

  /** Replaces the weights (validated first, so a bad map leaves the current ones untouched) and resets AdamW. */
  setWeights(w: Weights, opt?: OptimizerState): void {
    checkWeights(this.config, w);
    if (opt) {
      checkWeights(this.config, opt.m);
      checkWeights(this.config, opt.v);
    }
    const old = [...Object.values(this.params), ...Object.values(this.moments)];
    this.params = {};
    for (const s of paramSpecs(this.config))
      this.params[s.name] = this.backend.tensor('float32', w.get(s.name)!, s.shape);
    // The moments cover the trainable parameters only (a frozen base has none).
    const specs = trainableSpecs(this.config);
    const total = flatLength(specs.map((s) => s.shape));
    const flat = (moment: Weights | undefined) => {
      const a = new Float32Array(total);
      let offset = 0;
      for (const s of specs) {
        const x = moment?.get(s.name);
        if (x) a.set(x, offset);
        offset += size(s.shape);
      }
      return this.backend.tensor('float32', a, [total]);
    };
    this.moments = { [MOMENTS[0]]: flat(opt?.m), [MOMENTS[1]]: flat(opt?.v) };
    this.adamStep = opt?.step ?? 0;
    old.forEach((t) => this.backend.dispose(t));
    this.setFrozen(w);
  }

  /** Keeps the frozen weights to bake; sessions that baked other ones are released (compiled again on use). */
  private setFrozen(w: Weights): void {
    const old = this.frozen;
    this.frozen = frozenWeights(paramSpecs(this.config), w);
    if (!sameArrays(old, this.frozen)) for (const key of [...this.baked]) this.drop(key);
  }

  /** Forgets a kept session and releases it once it is compiled. */
  private drop(key: string): void {
    const s = this.sessions.get(key);
    this.sessions.delete(key);
    this.baked.delete(key);
    void s?.then(
      (x) => x.release(),
      () => undefined,
    );
  }

  async getWeights(): Promise<Weights> {
    const out: Weights = new Map();
    for (const n of this.names)
      out.set(n, Float32Array.from((await this.backend.read(this.params[n]!)) as Float32Array));
    return out;
  }

  /**
   * The AdamW moments per parameter; a frozen base weight (LoRA) has none and reads as zeros, so the map covers every
   * parameter.
   */
  async getOptimizerState(): Promise<OptimizerState> {
    const split = async (name: string): Promise<Weights> => {
      const flat = (await this.backend.read(this.moments[name]!)) as Float32Array;
      const out: Weights = new Map();
      let offset = 0;
      for (const s of paramSpecs(this.config)) {
        const n = size(s.shape);
        if (s.frozen) {
          out.set(s.name, new Float32Array(n));
          continue;
        }
        out.set(s.name, flat.slice(offset, offset + n));
        offset += n;
      }
      return out;
    };
    return { step: this.adamStep, m: await split(MOMENTS[0]), v: await split(MOMENTS[1]) };
  }

  /** Freezes a copy of the current weights as the reference policy (KL anchor; ProRL resets). */
  async resetReference(): Promise<void> {
    const w = await this.getWeights();
    const old = this.ref;
    this.ref = {};
    for (const s of paramSpecs(this.config)) this.ref[s.name] = this.backend.tensor('float32', w.get(s.name)!, s.shape);
    if (old) Object.values(old).forEach((t) => this.backend.dispose(t));
  }

  /** A host copy of the reference weights (null when none is set): saved with a run so a resume is exact. */
  async getReferenceWeights(): Promise<Weights | null> {
    if (!this.ref) return null;
    const out: Weights = new Map();
    for (const n of this.names) out.set(n, Float32Array.from((await this.backend.read(this.ref[n]!)) as Float32Array));
    return out;
  }

  get hasReference(): boolean {
    return this.ref !== null;
  }

  /**
   * The compiled session for `key`, built on first use. Each session holds its own memory arena, and
   * fitted grids (layout.ts chooseGrid) give one graph a few shapes, so only the most recently used
   * SESSIONS_PER_KIND sessions of each kind (the key's part before the first ':') are kept; of a kind that bakes the
   * frozen base in (residentKinds), one.
   */
  session(key: string, build: () => Graph, opts: Omit<SessionOptions, 'label'> = {}): Promise<Session> {
    let s = this.sessions.get(key);
    if (s) {
      this.sessions.delete(key); // Map order is use order: re-insert as the most recent
      this.sessions.set(key, s);
      return s;
    }
    const kind = (k: string) => k.slice(0, k.indexOf(':') + 1 || k.length);
    const resident = this.residentKinds.has(kind(key).replace(/:$/, '')) ? this.frozen : null;
    // A session with the base baked in holds a copy of it: the older one of its kind goes before it is made.
    const sameKind = [...this.sessions.keys()].filter((k) => kind(k) === kind(key));
    const keep = resident ? 0 : SESSIONS_PER_KIND - 1;
    for (const old of sameKind.slice(0, Math.max(0, sameKind.length - keep))) this.drop(old);
    // onnxruntime-node takes no in-memory external data (its weights stay inside the model)
    const { compiled, baked } = compileResident(build(), resident, this.backend.kind !== 'node');
    s = this.backend.createSession(compiled, { ...opts, label: key }).then((x) => withoutFeeds(x, baked));
    this.sessions.set(key, s);
    if (baked.size) this.baked.add(key);
    s.catch(() => this.drop(key));
    return s;
  }

  /** Whether a session for `key` is compiled (or being compiled) and kept. */
  hasSession(key: string): boolean {
    return this.sessions.has(key);
  }

  /** Keys of the compiled sessions kept, least recently used first. */
  get compiledSessions(): string[] {
    return [...this.sessions.keys()];
  }

  /**
   * Generates one completion per prompt row in a single batch (kv-sampler.ts): one prefill run over the
   * prompts gives their keys and values and the first token, then the decode graph adds one token per run.
   */
  sample(prompts: number[][], sp: SamplingParams, maxNewTokens: number, rng: Rng): Promise<Completion[]> {
    return sampleBatch(
      {
        backend: this.backend,
        config: this.config,
        layout: this.layout,
        params: this.params,
        stopTokens: this.stopTokens,
        decoded: (tokens, max) => this.onDecode?.(tokens, max),
        session: (key, build, opts) => this.session(key, build, opts),
      },
      prompts,
      sp,
      maxNewTokens,
      rng,
    );
  }

  packedFeeds(b: PackedBatch, invTemperature: number): Record<string, DeviceTensor> {
    return {
      tokens: this.backend.tensor('int64', b.tokens, [b.rows, b.len]),
      positions: this.backend.tensor('int64', b.positions, [b.rows, b.len]),
      key_bias: this.backend.tensor('float32', b.keyBias, [b.rows, b.len]),
      targets: this.backend.tensor('int64', b.targets, [b.rows, b.len, 1]),
      inv_temperature: this.backend.tensor('float32', [invTemperature], []),
    };
  }

  /** A split grid (layout.ts splitShared) as the inputs of the graphs that pass each distinct prompt once. */
  sharedFeeds(b: SharedBatch, invTemperature: number): Record<string, DeviceTensor> {
    const cl = b.len - b.promptLen;
    const be = this.backend;
    return {
      prompt_tokens: be.tensor('int64', b.promptTokens, [b.distinct, b.promptLen]),
      prompt_positions: be.tensor('int64', b.promptPositions, [b.distinct, b.promptLen]),
      prompt_key_bias: be.tensor('float32', b.promptKeyBias, [b.distinct, b.promptLen]),
      row_of: be.tensor('int64', b.rowOf, [b.rows]),
      tokens: be.tensor('int64', b.tokens, [b.rows, cl]),
      positions: be.tensor('int64', b.positions, [b.rows, cl]),
      key_bias: be.tensor('float32', b.keyBias, [b.rows, cl]),
      targets: be.tensor('int64', b.targets, [b.rows, cl, 1]),
      inv_temperature: be.tensor('float32', [invTemperature], []),
    };
  }

  /** Per-token log-probs and entropies of given completions under the current (or reference) weights. */
  async score(
    prompts: number[][],
    completions: number[][],
    temperature = 1,
    which: 'policy' | 'reference' = 'policy',
  ): Promise<TokenScores> {
    const groups = promptGroups(prompts);
    const distinct = groups.first.length;
    const key = (l: Layout) => `score:${completions.length}x${totalLen(l)}:u${distinct}`;
    const layout = chooseGrid(this.layout, completions, (l) => this.hasSession(key(l)));
    const b = pack(layout, prompts, completions);
    const weights = which === 'reference' ? this.ref : this.params;
    if (!weights) throw new Error('score: no reference policy has been set');
    const session = await this.session(key(layout), () =>
      buildScoreGraph(this.config, b.rows, distinct, layout.promptLen, b.len),
    );
    const res = await session.run({
      ...weights,
      ...this.sharedFeeds(splitShared(b, layout.promptLen, groups), 1 / temperature),
    });
    const logp = (await this.backend.read(res['logp']!)) as Float32Array;
    const ent = (await this.backend.read(res['entropy']!)) as Float32Array;
    Object.values(res).forEach((t) => this.backend.dispose(t));
    const out: TokenScores = { logp: [], entropy: [] };
    completions.forEach((comp, r) => {
      const n = Math.min(comp.length, layout.completionLen);
      const cols = Array.from({ length: n }, (_, i) => r * b.len + predictingColumn(layout, i));
      out.logp.push(cols.map((c) => logp[c]!));
      out.entropy.push(cols.map((c) => ent[c]!));
    });
    return out;
  }

  /**
   * Runs one optimizer step of a training graph built with `trainState` (graphs.ts): feeds the
   * parameters, moments, step and learning rate, swaps the updated ones in, and reads back every
   * other output. A skipped (non-finite) step leaves weights, moments and the step count unchanged.
   */
  async train(key: string, build: () => Graph, feeds: Record<string, DeviceTensor>, lr: number): Promise<TrainResult> {
    const trained = this.trainableNames;
    const resident = [...trained, ...MOMENTS].map((n) => 'new.' + n);
    const session = await this.session(key, build, { deviceOutputs: resident });
    const res = await session.run({
      ...this.params,
      ...this.moments,
      ...feeds,
      step: this.backend.tensor('float32', [this.adamStep + 1], []),
      lr: this.backend.tensor('float32', [lr], []),
    });
    const values: Record<string, Float32Array> = {};
    for (const [k, t] of Object.entries(res)) {
      if (k.startsWith('new.')) continue;
      values[k] = Float32Array.from((await this.backend.read(t)) as Float32Array);
      this.backend.dispose(t);
    }
    for (const n of trained) {
      this.backend.dispose(this.params[n]!);
      this.params[n] = res['new.' + n]!;
    }
    for (const n of MOMENTS) {
      this.backend.dispose(this.moments[n]!);
      this.moments[n] = res['new.' + n]!;
    }
    const applied = values['applied']![0]! > 0.5;
    if (applied) this.adamStep++;
    return { loss: values['loss']![0]!, gradNorm: values['grad_norm']![0]!, applied, values };
  }

  async dispose(): Promise<void> {
    for (const t of [...Object.values(this.params), ...Object.values(this.moments), ...Object.values(this.ref ?? {})])
      this.backend.dispose(t);
    for (const s of this.sessions.values()) await (await s).release();
    this.sessions.clear();
  }
}

export { Rng };
