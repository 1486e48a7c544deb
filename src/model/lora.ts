import type { Graph, Tensor } from '../engine/graph.ts';
import { Rng } from '../util/rng.ts';
import type { LoraSpec, ModelConfig } from './config.ts';
import type { ParamSpec, Params } from './param-spec.ts';

/**
 * LoRA (Hu et al., 2021) as PEFT 0.21's `LoraConfig` builds it: each targeted linear layer W gets a
 * rank-r pair A, B and computes W x + (alpha / r) · B A x (PEFT's scaling, rslora off), with A
 * initialised kaiming-uniform (a = √5, so uniform in ±1/√in) and B zero, so a fresh adapter leaves the
 * model unchanged. The base weights are frozen (no gradient, no AdamW moments: graphs.ts trainState
 * trains only the specs that are not `frozen`).
 *
 * Module names are PEFT's (transformers' Llama/Qwen2 ones). Our weights are stored x·W ([in, out]),
 * so our A is PEFT's lora_A.weight transposed ([in, r]) and our B is lora_B.weight transposed
 * ([r, out]); peft-adapter.ts transposes on save and load.
 *
 * The playground's GPT-2 has separate q/k/v projections, so the same names apply to it: q_proj,
 * k_proj, v_proj (attn.wq/wk/wv), o_proj (attn.wo, transformers' attn.c_proj), up_proj (mlp.w1,
 * transformers' mlp.c_fc) and down_proj (mlp.w2, transformers' mlp.c_proj); it has no gate_proj, which
 * is skipped there (as PEFT skips a listed name no module has, once at least one matches).
 */
export const PEFT_TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type PeftTarget = (typeof PEFT_TARGETS)[number];

/** Our weight name (after `h{l}.`) of each PEFT module, per architecture; absent where the architecture has none. */
const LLAMA_WEIGHTS: Record<PeftTarget, string> = {
  q_proj: 'attn.wq',
  k_proj: 'attn.wk',
  v_proj: 'attn.wv',
  o_proj: 'attn.wo',
  gate_proj: 'mlp.wg',
  up_proj: 'mlp.wu',
  down_proj: 'mlp.wd',
};
const GPT2_WEIGHTS: Partial<Record<PeftTarget, string>> = {
  q_proj: 'attn.wq',
  k_proj: 'attn.wk',
  v_proj: 'attn.wv',
  o_proj: 'attn.wo',
  up_proj: 'mlp.w1',
  down_proj: 'mlp.w2',
};

export const loraWeightOf = (c: ModelConfig, t: PeftTarget): string | undefined =>
  (c.arch === 'llama' ? LLAMA_WEIGHTS : GPT2_WEIGHTS)[t];

/** Parses a target_modules value: PEFT's names, comma-separated (spaces allowed). */
export function parseTargets(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0);
}

/** Why `targets` cannot be LoRA targets (unknown or duplicate names, none at all), or null. */
export function targetsProblem(targets: readonly string[]): string | null {
  if (!targets.length) return 'names no module (give some of ' + PEFT_TARGETS.join(', ') + ')';
  for (const t of targets)
    if (!(PEFT_TARGETS as readonly string[]).includes(t))
      return `"${t}" is not one of PEFT's module names ${PEFT_TARGETS.join(', ')}`;
  if (new Set(targets).size !== targets.length) return 'names a module twice';
  return null;
}

/** The checks of a model's `lora` spec: the message names the field. */
export function validateLora(c: ModelConfig, l: LoraSpec): void {
  if (!Number.isInteger(l.r) || l.r <= 0)
    throw new Error(`model config: lora.r must be a positive integer, got ${l.r}`);
  if (!Number.isFinite(l.alpha) || l.alpha <= 0)
    throw new Error(`model config: lora.alpha must be a positive number, got ${l.alpha}`);
  const p = targetsProblem(l.targets);
  if (p) throw new Error(`model config: lora.targets ${p}`);
  if (!l.targets.some((t) => loraWeightOf(c, t as PeftTarget)))
    throw new Error(`model config: lora.targets (${l.targets.join(', ')}) name no module of this architecture`);
}

/** The weights an adapter wraps, in layer order: our base weight name and PEFT's module name. */
export function loraModules(c: ModelConfig): { layer: number; weight: string; module: PeftTarget }[] {
  const l = c.lora;
  if (!l) return [];
  const out: { layer: number; weight: string; module: PeftTarget }[] = [];
  for (let layer = 0; layer < c.nLayers; layer++)
    for (const t of PEFT_TARGETS) {
      const w = loraWeightOf(c, t);
      if (l.targets.includes(t) && w) out.push({ layer, weight: `h${layer}.${w}`, module: t });
    }
  return out;
}

/**
 * The adapter weights of `c` (after the base ones in paramSpecs): `W.lora_A` [in, r] and `W.lora_B` [r, out] per
 * targeted W.
 */
export function adapterSpecs(c: ModelConfig, base: readonly Omit<ParamSpec, 'decay'>[]): Omit<ParamSpec, 'decay'>[] {
  const r = c.lora?.r ?? 0;
  const shapes = new Map(base.map((s) => [s.name, s.shape]));
  return loraModules(c).flatMap(({ weight }) => {
    const [inDim, outDim] = shapes.get(weight)!;
    return [
      { name: weight + '.lora_A', shape: [inDim!, r], init: 'kaiming' as const },
      { name: weight + '.lora_B', shape: [r, outDim!], init: 'zeros' as const },
    ];
  });
}

/** PEFT's scaling alpha / r (rslora off). */
export const loraScaling = (l: LoraSpec) => l.alpha / l.r;

/**
 * x · W, plus (alpha / r) · (x · A) · B when W carries an adapter: the one place a targeted linear
 * layer is computed, so every graph (scoring, training, prefill, decode) adds it, and its gradient
 * comes from the MatMul/Mul/Add rules. `name` is W's name.
 */
export function linear(g: Graph, c: ModelConfig, p: Params, name: string, x: Tensor): Tensor {
  const y = g.matmul(x, p[name]!);
  const a = c.lora ? p[name + '.lora_A'] : undefined;
  if (!a) return y;
  return g.add(y, g.mul(g.matmul(g.matmul(x, a), p[name + '.lora_B']!), loraScaling(c.lora!)));
}

/** Fresh adapter weights as PEFT initialises them (A kaiming-uniform, bound 1/√in; B zero), seeded. */
export function initAdapters(
  c: ModelConfig,
  base: readonly Omit<ParamSpec, 'decay'>[],
  seed: number,
): Map<string, Float32Array> {
  const rng = new Rng(seed);
  const out = new Map<string, Float32Array>();
  for (const s of adapterSpecs(c, base)) {
    const a = new Float32Array(s.shape[0]! * s.shape[1]!);
    if (s.init === 'kaiming') {
      const bound = 1 / Math.sqrt(s.shape[0]!);
      for (let i = 0; i < a.length; i++) a[i] = (2 * rng.next() - 1) * bound;
    }
    out.set(s.name, a);
  }
  return out;
}

/**
 * The base weights with each adapter merged in, W + (alpha / r) · A B in our [in, out] layout, as PEFT's
 * `merge_and_unload` computes it (lora/layer.py get_delta_weight: B @ A times the scaling, added to the
 * base weight); the adapter weights are left out. A model without `lora` gets its weights unchanged.
 */
export function mergedWeights(c: ModelConfig, w: ReadonlyMap<string, Float32Array>): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  for (const [k, v] of w) if (!/\.lora_[AB]$/.test(k)) out.set(k, v);
  if (!c.lora) return out;
  const r = c.lora.r;
  const scale = Math.fround(loraScaling(c.lora));
  for (const { weight } of loraModules(c)) {
    const base = w.get(weight)!;
    const a = w.get(weight + '.lora_A')!;
    const b = w.get(weight + '.lora_B')!;
    const inDim = a.length / r;
    const outDim = b.length / r;
    const merged = new Float32Array(base.length);
    for (let i = 0; i < inDim; i++)
      for (let j = 0; j < outDim; j++) {
        let delta = 0;
        for (let k = 0; k < r; k++) delta += a[i * r + k]! * b[k * outDim + j]!;
        merged[i * outDim + j] = base[i * outDim + j]! + Math.fround(Math.fround(delta) * scale);
      }
    out.set(weight, merged);
  }
  return out;
}

/**
 * Why the adapters of `w` change nothing, or null: every lora_B exactly zero (PEFT initialises B to zero,
 * and a run whose groups all earn the same reward has zero advantages, so no update ever moves it).
 */
export function zeroAdaptersWarning(c: ModelConfig, w: ReadonlyMap<string, Float32Array>): string | null {
  if (!c.lora) return null;
  const modules = loraModules(c);
  if (!modules.every(({ weight }) => w.get(weight + '.lora_B')?.every((x) => x === 0))) return null;
  return (
    `every LoRA B matrix is zero: the adapters change nothing — did the run get any reward? ` +
    `(${modules.length} adapters, r = ${c.lora.r}; B starts at zero and stays there while every group's ` +
    'rewards are equal, e.g. all 0, because the advantages are then zero; the model with them is the base model)'
  );
}
