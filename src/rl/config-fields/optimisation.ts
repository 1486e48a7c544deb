// The run-config fields of the group "Optimisation" (config-fields.ts: the whole table, and what is derived from it).
import type { FieldDecl } from './decl.ts';

const OPT = 'Optimisation' as const;

export const optimisationFields = {
  learning_rate: {
    kind: 'num',
    default: 1e-4,
    min: 0,
    max: 1,
    group: OPT,
    trl: true,
    trlDefault: 1e-6,
    help: 'AdamW step size',
  },
  warmup_steps: {
    kind: 'int',
    default: 10,
    min: 0,
    max: 1e6,
    group: OPT,
    trl: true,
    trlDefault: 0,
    help: 'linear learning-rate warm-up over the first N steps (a fresh Adam takes large, sign-like first steps)',
  },
  adam_beta1: {
    kind: 'num',
    default: 0.9,
    min: 0,
    max: 0.9999,
    group: OPT,
    trl: true,
    help: 'AdamW first-moment decay',
  },
  adam_beta2: {
    kind: 'num',
    default: 0.999,
    min: 0,
    max: 0.99999,
    group: OPT,
    trl: true,
    help: 'AdamW second-moment decay',
  },
  weight_decay: {
    kind: 'num',
    default: 0,
    min: 0,
    max: 1,
    group: OPT,
    trl: true,
    help: 'decoupled weight decay (AdamW); not on biases or LayerNorm, as in transformers',
  },
  max_grad_norm: {
    kind: 'num',
    default: 1,
    min: 0,
    max: 1e6,
    group: OPT,
    trl: true,
    help: 'clip the global gradient norm to this (0 = no clipping)',
  },
  num_iterations: {
    kind: 'int',
    default: 1,
    min: 1,
    max: 16,
    group: OPT,
    trl: true,
    paper: 'PPO (Schulman et al., 2017)',
    help: 'μ: optimisation passes over each sampled batch (PPO epochs); >1 makes the ratio and clipping matter',
  },
  minibatches: {
    kind: 'int',
    default: 1,
    min: 1,
    max: 64,
    group: OPT,
    restart: true,
    help: 'optimizer steps per pass: the batch is split this many ways (more = more off-policy)',
  },
  steps_per_generation: {
    kind: 'int',
    default: 0,
    min: 0,
    max: 256,
    group: OPT,
    trl: true,
    help:
      "TRL's steps_per_generation: the batch is split into this many micro-batches, minibatches optimizer " +
      "steps each accumulating steps_per_generation / minibatches of them, each micro-batch's loss " +
      "normalised as TRL does (dapo, cispo, vespo, clip_cov, kl_cov: by the batch's tokens × accumulation / " +
      'steps_per_generation); 0 = one micro-batch per optimizer step, token means over the whole batch',
  },
  // PEFT's LoraConfig names (src/model/lora.ts); the TRL export passes them as peft_config.
  lora_r: {
    kind: 'int',
    default: 0,
    min: 0,
    max: 256,
    group: OPT,
    restart: true,
    paper: 'LoRA (Hu et al., 2021)',
    help:
      'LoRA rank r: train rank-r adapters A, B on target_modules with the base weights frozen (0 = full ' +
      "fine-tuning); PEFT's r",
  },
  lora_alpha: {
    kind: 'num',
    default: 16,
    min: 0,
    max: 4096,
    exclusiveMin: true,
    group: OPT,
    restart: true,
    paper: 'LoRA (Hu et al., 2021)',
    help: "LoRA scaling: the adapter adds (lora_alpha / lora_r) · B A x; PEFT's lora_alpha",
  },
  lora_dropout: {
    kind: 'num',
    default: 0,
    min: 0,
    max: 1,
    group: OPT,
    restart: true,
    paper: 'LoRA (Hu et al., 2021)',
    help:
      "dropout on the adapters' input; PEFT's lora_dropout (only 0 runs here: the engine has no dropout, " +
      "and TRL's disable_dropout, set by the export, zeroes it too)",
  },
  target_modules: {
    kind: 'str',
    default: 'q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj',
    group: OPT,
    restart: true,
    paper: 'LoRA (Hu et al., 2021)',
    help:
      "the linear layers that get adapters, PEFT's module names, comma-separated: q_proj, k_proj, v_proj, " +
      "o_proj, gate_proj, up_proj, down_proj (the playground's GPT-2 has no gate_proj; its up_proj / " +
      'down_proj are mlp.c_fc / mlp.c_proj)',
  },

  // Its choices, help and papers come from the loss-type table (loss-types.ts).
} as const satisfies Record<string, FieldDecl>;
