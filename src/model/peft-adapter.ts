import { isLlama, type LoraSpec, type ModelConfig } from './config.ts';
import {
  adapterSpecs,
  loraModules,
  loraWeightOf,
  PEFT_TARGETS,
  targetsProblem,
  validateLora,
  type PeftTarget,
} from './lora.ts';
import type { Weights } from './policy.ts';
import { readSafetensors, writeSafetensors } from './safetensors.ts';
import { paramSpecs } from './transformer.ts';

/**
 * LoRA adapters in PEFT 0.21's format: `adapter_config.json` (a LoraConfig) and
 * `adapter_model.safetensors` with PEFT's keys, e.g.
 * `base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight` [r, in] and `…lora_B.weight`
 * [out, r] (torch Linear weights: our A and B transposed, lora.ts). `PeftModel.from_pretrained` loads
 * what `adapterFiles` writes, and `readAdapter` reads what PEFT's `save_pretrained` writes.
 *
 * Llama/Qwen2 map every module. The playground's GPT-2 exports to transformers' GPT2LMHeadModel,
 * whose attention has one fused `attn.c_attn`: its o_proj, up_proj and down_proj adapters map to
 * `attn.c_proj`, `mlp.c_fc` and `mlp.c_proj` (Conv1D, fan_in_fan_out), but separate q/k/v adapters
 * have no PEFT form there and are refused.
 */
export class AdapterError extends Error {}

const fail = (msg: string): never => {
  throw new AdapterError(msg);
};

const LLAMA_MODULES: Record<PeftTarget, string> = {
  q_proj: 'self_attn.q_proj',
  k_proj: 'self_attn.k_proj',
  v_proj: 'self_attn.v_proj',
  o_proj: 'self_attn.o_proj',
  gate_proj: 'mlp.gate_proj',
  up_proj: 'mlp.up_proj',
  down_proj: 'mlp.down_proj',
};
const GPT2_MODULES: Partial<Record<PeftTarget, string>> = {
  o_proj: 'attn.c_proj',
  up_proj: 'mlp.c_fc',
  down_proj: 'mlp.c_proj',
};

/** PEFT's module path (under base_model.model.) of a layer's targeted module, or why it has none. */
function peftModule(c: ModelConfig, layer: number, t: PeftTarget): string {
  if (isLlama(c)) return `model.layers.${layer}.${LLAMA_MODULES[t]}`;
  const m =
    GPT2_MODULES[t] ??
    fail(
      `${t}: transformers' GPT-2 fuses q, k and v into attn.c_attn, so a separate ${t} adapter has no ` +
        'PEFT form (train o_proj, up_proj, down_proj on GPT-2 to export)',
    );
  return `transformer.h.${layer}.${m}`;
}

/** The target_modules PEFT's LoraConfig gets: our names on Llama, GPT-2's module suffixes there. */
function peftTargetNames(c: ModelConfig, l: LoraSpec): string[] {
  const ours = PEFT_TARGETS.filter((t) => l.targets.includes(t) && loraWeightOf(c, t));
  return isLlama(c)
    ? ours
    : ours.map((t) => GPT2_MODULES[t] ?? fail(`${t}: no PEFT form on transformers' GPT-2 (fused attn.c_attn)`));
}

function transpose(a: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = a[i * cols + j]!;
  return out;
}

/** adapter_config.json and adapter_model.safetensors of the adapters in `w` (a model with `c.lora`). */
export function adapterFiles(c: ModelConfig, w: Weights, baseModel = ''): { config: string; weights: Uint8Array } {
  const l = c.lora ?? fail('the model has no LoRA adapters (lora_r = 0): nothing to export in PEFT format');
  const shapes = new Map(paramSpecs(c).map((s) => [s.name, s.shape]));
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const { layer, weight, module } of loraModules(c)) {
    const path = `base_model.model.${peftModule(c, layer, module)}`;
    const [inDim, r] = shapes.get(weight + '.lora_A')!;
    const [, outDim] = shapes.get(weight + '.lora_B')!;
    tensors.set(`${path}.lora_A.weight`, {
      shape: [r!, inDim!],
      data: transpose(w.get(weight + '.lora_A')!, inDim!, r!),
    });
    tensors.set(`${path}.lora_B.weight`, {
      shape: [outDim!, r!],
      data: transpose(w.get(weight + '.lora_B')!, r!, outDim!),
    });
  }
  const config = {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: baseModel,
    r: l.r,
    lora_alpha: l.alpha,
    lora_dropout: 0,
    target_modules: peftTargetNames(c, l),
    bias: 'none',
    fan_in_fan_out: !isLlama(c),
    use_rslora: false,
    use_dora: false,
    init_lora_weights: true,
    inference_mode: true,
    modules_to_save: null,
  };
  return { config: JSON.stringify(config, null, 2) + '\n', weights: writeSafetensors(tensors, { format: 'pt' }) };
}

/**
 * Reads a PEFT LoRA adapter for the base model `base` (no `lora`): its spec and the adapter weights
 * under our names and layout. Refused, naming the reason, when it is not a plain LoRA (rslora, DoRA,
 * biases, modules_to_save, per-module ranks), when it targets a module we do not have, or when a tensor
 * is missing, extra or of another base's shape; nothing is returned half read.
 */
export function readAdapter(
  base: ModelConfig,
  configJson: string,
  weightBytes: Uint8Array,
): { lora: LoraSpec; weights: Weights } {
  let cfg: Record<string, unknown>;
  try {
    cfg = JSON.parse(configJson) as Record<string, unknown>;
  } catch (e) {
    return fail(`adapter_config.json: not JSON (${(e as Error).message})`);
  }
  if (cfg.peft_type !== 'LORA')
    fail(`adapter_config.json: peft_type is ${JSON.stringify(cfg.peft_type)}, only LORA is supported`);
  for (const [k, off] of [
    ['use_rslora', false],
    ['use_dora', false],
    ['bias', 'none'],
  ] as const)
    if (cfg[k] !== undefined && cfg[k] !== off)
      fail(`adapter_config.json: ${k} is ${JSON.stringify(cfg[k])}; only ${JSON.stringify(off)} is supported`);
  for (const k of ['modules_to_save', 'rank_pattern', 'alpha_pattern', 'layers_to_transform'] as const) {
    const v = cfg[k];
    if (v !== undefined && v !== null && !(typeof v === 'object' && Object.keys(v).length === 0))
      fail(`adapter_config.json: ${k} is set (${JSON.stringify(v)}); not supported`);
  }
  const r = cfg.r;
  const alpha = cfg.lora_alpha;
  if (typeof r !== 'number' || !Number.isInteger(r) || r <= 0)
    fail(`adapter_config.json: r must be a positive integer, got ${JSON.stringify(r)}`);
  if (typeof alpha !== 'number' || alpha <= 0)
    fail(`adapter_config.json: lora_alpha must be a positive number, got ${JSON.stringify(alpha)}`);
  const names = Array.isArray(cfg.target_modules)
    ? (cfg.target_modules as unknown[])
    : fail(
        `adapter_config.json: target_modules must be a list of module names, got ${JSON.stringify(cfg.target_modules)}`,
      );
  const gpt2Back: Record<string, string> = Object.fromEntries(Object.entries(GPT2_MODULES).map(([k, v]) => [v, k]));
  const targets = names.map((n) => String(isLlama(base) ? n : (gpt2Back[String(n)] ?? n)));
  const problem = targetsProblem(targets);
  if (problem) fail(`adapter_config.json: target_modules ${problem}`);
  const lora: LoraSpec = {
    r: r as number,
    alpha: alpha as number,
    targets: PEFT_TARGETS.filter((t) => targets.includes(t)),
  };
  const c: ModelConfig = { ...base, lora };
  try {
    validateLora(c, lora);
  } catch (e) {
    fail(`adapter_config.json: ${(e as Error).message}`);
  }
  let tensors: Map<string, { shape: number[]; data: Float32Array }>;
  try {
    tensors = readSafetensors(weightBytes).tensors;
  } catch (e) {
    return fail(`adapter_model.safetensors: ${(e as Error).message}`);
  }
  const { lora: _none, ...plain } = c;
  const shapes = new Map(adapterSpecs(c, paramSpecs(plain)).map((s) => [s.name, s.shape]));
  const weights: Weights = new Map();
  const used = new Set<string>();
  for (const { layer, weight, module } of loraModules(c)) {
    const path = `base_model.model.${peftModule(c, layer, module)}`;
    for (const part of ['lora_A', 'lora_B'] as const) {
      const [rows, cols] = shapes.get(`${weight}.${part}`)!;
      const key = `${path}.${part}.weight`;
      const t =
        tensors.get(key) ??
        fail(`adapter_model.safetensors: tensor "${key}" is missing (target_modules names ${module})`);
      if (t.shape.length !== 2 || t.shape[0] !== cols || t.shape[1] !== rows)
        fail(
          `adapter_model.safetensors: tensor "${key}" has shape [${t.shape}], this base model needs ` +
            `[${cols}, ${rows}] (an adapter for another base?)`,
        );
      weights.set(`${weight}.${part}`, transpose(t.data, cols!, rows!));
      used.add(key);
    }
  }
  for (const k of tensors.keys())
    if (!used.has(k))
      fail(`adapter_model.safetensors: unexpected tensor "${k}" (not a LoRA weight of this base's targeted modules)`);
  return { lora, weights };
}

/**
 * README.md beside the adapter (PEFT's save_pretrained writes a model card there too): what it adapts,
 * and, when every B is zero (lora.ts zeroAdaptersWarning), that loading it changes nothing.
 */
export function adapterReadme(name: string, c: ModelConfig, baseModel: string, warning: string | null): string {
  const l = c.lora ?? fail('the model has no LoRA adapters (lora_r = 0)');
  const lines = [
    `# ${name} (LoRA adapter)`,
    '',
    `LoRA adapters exported by \`rlvr export --format peft\` from the playground checkpoint ${name}: r = ${l.r},`,
    `lora_alpha = ${l.alpha}, target_modules ${peftTargetNames(c, l).join(', ')}, for the base model ` +
      `${JSON.stringify(baseModel)}. Load with PeftModel.from_pretrained(base, this folder).`,
  ];
  if (warning) lines.push('', `**Warning:** ${warning}.`);
  return lines.join('\n') + '\n';
}
