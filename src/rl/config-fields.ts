/**
 * Every run-config field, declared once: its type, default, range or choices, one-line help, paper,
 * the group it sits in under the UI's "Advanced", and whether changing it needs a new run. The
 * RunConfig type, the defaults, validation (config.ts), the setup form (src/ui/config-form.ts), the
 * URL (src/ui/url-state.ts), `rlvr train --help` and docs/config.md's field table are all derived from
 * this table. Where TRL's GRPOConfig has a knob, the field has its name and meaning (`trl: true`), so a
 * setting carries over to TRL and back.
 *
 * Adding a knob: add one entry here, then use it where it acts (trainer, objective, sampler…).
 */

import { parseTargets, targetsProblem } from '../model/lora.ts';
import { lossTypeHelp, lossTypeNames, lossTypePapers } from './loss-types.ts';

export type FieldGroup =
  | 'Run'
  | 'Sampling'
  | 'Optimisation'
  | 'Objective'
  | 'Data and reward'
  | 'Curriculum'
  | 'Evaluation and bookkeeping';

interface Common {
  group: FieldGroup;
  help: string;
  paper?: string;
  /** TRL's GRPOConfig has a field of this name and meaning. */
  trl?: boolean;
  /**
   * TRL 1.13's GRPOConfig default, where it differs from this field's (the setup's TRL badge says so;
   * src/export/trl/trl-mapping.test.ts checks every trl field's default against the installed TRL).
   */
  trlDefault?: number | string | boolean;
  /** Changing it changes compiled graph shapes or the prompt stream: it takes effect in a new run. */
  restart?: boolean;
  /** Set by its own control in the UI (task picker, knobs), not by the generic form. */
  ownControl?: boolean;
}

export type FieldDecl = Common &
  (
    | { kind: 'int' | 'num'; default: number; min: number; max: number; exclusiveMin?: boolean }
    | { kind: 'nullable-num'; default: number | null; min: number }
    | { kind: 'enum'; default: string; values: readonly string[] }
    | { kind: 'bool'; default: boolean }
    | { kind: 'str'; default: string }
    | { kind: 'record'; default: Record<string, number | string> }
    | {
        kind: 'weights';
        default: Record<string, number>;
        min: number;
        max: number;
        parts: Record<string, { help: string; paper?: string; trl?: boolean }>;
      }
  );

const RUN = 'Run' as const;
const SAMPLING = 'Sampling' as const;
const OPT = 'Optimisation' as const;
const OBJ = 'Objective' as const;
const DATA = 'Data and reward' as const;
const CURR = 'Curriculum' as const;
const EVAL = 'Evaluation and bookkeeping' as const;

export const fieldTable = {
  version: { kind: 'int', default: 1, min: 1, max: 1, group: RUN, help: 'config format version', ownControl: true },
  task: {
    kind: 'str',
    default: 'sat',
    group: RUN,
    help: 'task family id (rlvr tasks lists them)',
    restart: true,
    ownControl: true,
  },
  difficulty: {
    kind: 'record',
    default: {},
    group: RUN,
    help: "the task family's difficulty knobs (unset: the checkpoint's measured difficulty)",
    ownControl: true,
  },
  seed: {
    kind: 'int',
    default: 0,
    min: 0,
    max: 2 ** 31 - 1,
    group: RUN,
    restart: true,
    help: 'seeds prompts, sampling and noise: same seed + config + backend gives the same run',
  },

  prompts_per_step: {
    kind: 'int',
    default: 8,
    min: 1,
    max: 256,
    group: SAMPLING,
    restart: true,
    help: 'prompts sampled per step; each gets a group of num_generations completions',
  },
  num_generations: {
    kind: 'int',
    default: 8,
    min: 2,
    max: 64,
    group: SAMPLING,
    restart: true,
    trl: true,
    paper: 'GRPO (DeepSeekMath)',
    help: 'group size G: completions per prompt, compared with each other for the advantage',
  },
  temperature: {
    kind: 'num',
    default: 1,
    min: 0,
    max: 10,
    exclusiveMin: true,
    group: SAMPLING,
    trl: true,
    help: 'sampling temperature (also used when scoring log-probs)',
  },
  top_p: {
    kind: 'num',
    default: 1,
    min: 0,
    max: 1,
    exclusiveMin: true,
    group: SAMPLING,
    trl: true,
    help: 'nucleus sampling: keep the smallest set of tokens with this much probability',
  },
  top_k: {
    kind: 'int',
    default: 0,
    min: 0,
    max: 1000,
    group: SAMPLING,
    trl: true,
    help: 'keep only the k most likely tokens (0 = off)',
  },
  min_p: {
    kind: 'num',
    default: 0,
    min: 0,
    max: 1,
    group: SAMPLING,
    trl: true,
    paper: 'Min-p sampling (Nguyen et al., 2024)',
    help: "keep only tokens at least min_p × the top token's probability (0 = off)",
  },
  repetition_penalty: {
    kind: 'num',
    default: 1,
    min: 0,
    max: 10,
    exclusiveMin: true,
    group: SAMPLING,
    trl: true,
    paper: 'CTRL (Keskar et al., 2019)',
    help: 'divide the positive logits (multiply the negative ones) of tokens already in the prompt or completion by this before sampling (1 = off)',
  },
  max_completion_length: {
    kind: 'int',
    default: 48,
    min: 1,
    max: 512,
    group: SAMPLING,
    restart: true,
    trl: true,
    trlDefault: 512,
    help: "cap on generated tokens; longer completions are truncated (prompt + this must fit the model's context)",
  },

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
    help: "TRL's steps_per_generation: the batch is split into this many micro-batches, minibatches optimizer steps each accumulating steps_per_generation / minibatches of them, each micro-batch's loss normalised as TRL does (dapo, cispo, vespo, clip_cov, kl_cov: by the batch's tokens × accumulation / steps_per_generation); 0 = one micro-batch per optimizer step, token means over the whole batch",
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
    help: "LoRA rank r: train rank-r adapters A, B on target_modules with the base weights frozen (0 = full fine-tuning); PEFT's r",
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
    help: "dropout on the adapters' input; PEFT's lora_dropout (only 0 runs here: the engine has no dropout, and TRL's disable_dropout, set by the export, zeroes it too)",
  },
  target_modules: {
    kind: 'str',
    default: 'q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj',
    group: OPT,
    restart: true,
    paper: 'LoRA (Hu et al., 2021)',
    help: "the linear layers that get adapters, PEFT's module names, comma-separated: q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj (the playground's GPT-2 has no gate_proj; its up_proj / down_proj are mlp.c_fc / mlp.c_proj)",
  },

  // Its choices, help and papers come from the loss-type table (loss-types.ts).
  loss_type: {
    kind: 'enum',
    default: 'grpo',
    values: lossTypeNames,
    group: OBJ,
    trl: true,
    trlDefault: 'dapo',
    paper: lossTypePapers,
    help: lossTypeHelp,
  },
  multi_objective_aggregation: {
    kind: 'enum',
    default: 'sum_then_normalize',
    values: ['sum_then_normalize', 'normalize_then_sum'],
    group: OBJ,
    trl: true,
    paper: 'GDPO: Group reward-Decoupled Normalization Policy Optimization (2026)',
    help: 'sum_then_normalize: the weighted reward components are summed, then the advantage estimator and scale_rewards apply; normalize_then_sum (GDPO): each component (correctness, format, partial, overlong) is normalised within its group, then weighted, summed and normalised over the batch (advantage_estimator grpo only; scale_rewards does not apply)',
  },
  scale_rewards: {
    kind: 'enum',
    default: 'group',
    values: ['group', 'batch', 'none'],
    group: OBJ,
    trl: true,
    paper: 'Dr. GRPO; Lite PPO (Liu et al., 2025)',
    help: 'divide advantages by the group std, the batch std, or not at all',
  },
  advantage_estimator: {
    kind: 'enum',
    default: 'grpo',
    values: ['grpo', 'rloo', 'signed', 'reinforce_plus_plus', 'reinforce_plus_plus_baseline'],
    group: OBJ,
    paper: 'RLOO (Ahmadian et al., 2024); Zhu et al., 2025; REINFORCE++ (Hu, 2025)',
    help: 'grpo: reward − group mean; rloo: leave-one-out mean; signed: +1 right / −1 wrong (PSR/NSR); reinforce_plus_plus (veRL): reward whitened over the batch’s tokens; reinforce_plus_plus_baseline: reward − group mean, then whitened (both ignore scale_rewards)',
  },
  epsilon: {
    kind: 'num',
    default: 0.2,
    min: 0,
    max: 1,
    group: OBJ,
    trl: true,
    paper: 'PPO (Schulman et al., 2017)',
    help: 'lower clip: the ratio is clipped at 1 − epsilon (gmpo: the log-ratio at −epsilon)',
  },
  epsilon_high: {
    kind: 'num',
    default: 0.2,
    min: 0,
    max: 10,
    group: OBJ,
    trl: true,
    paper: 'DAPO (Yu et al., 2025)',
    help: 'upper clip 1 + epsilon_high; larger than epsilon = clip-higher (keeps entropy up). cispo: the cap ε_max on the ratio itself (ScaleRL recommends 5); gmpo: the upper bound on the log-ratio',
  },
  delta: {
    kind: 'nullable-num',
    default: null,
    min: 1,
    group: OBJ,
    trl: true,
    paper: 'INTELLECT-2 (Prime Intellect, 2025)',
    help: 'cap on the unclipped ratio (two-sided clipping); empty = off',
  },
  sapo_temperature_pos: {
    kind: 'num',
    default: 1,
    min: 0,
    max: 100,
    exclusiveMin: true,
    group: OBJ,
    trl: true,
    paper: 'SAPO (Gao et al., 2025)',
    help: 'sapo: gate temperature for tokens with positive advantage (higher = closer to a hard clip)',
  },
  sapo_temperature_neg: {
    kind: 'num',
    default: 1.05,
    min: 0,
    max: 100,
    exclusiveMin: true,
    group: OBJ,
    trl: true,
    paper: 'SAPO (Gao et al., 2025)',
    help: 'sapo: gate temperature for tokens with zero or negative advantage',
  },
  vespo_k_pos: {
    kind: 'num',
    default: 2,
    min: 0,
    max: 20,
    group: OBJ,
    trl: true,
    paper: 'VESPO',
    help: 'vespo: power k of the gamma weight for A >= 0 (down-weights sequences whose ratio is below 1)',
  },
  vespo_lambda_pos: {
    kind: 'num',
    default: 3,
    min: 0,
    max: 20,
    group: OBJ,
    trl: true,
    paper: 'VESPO',
    help: 'vespo: decay lambda of the gamma weight for A >= 0 (down-weights sequences whose ratio is above 1)',
  },
  vespo_k_neg: {
    kind: 'num',
    default: 3,
    min: 0,
    max: 20,
    group: OBJ,
    trl: true,
    paper: 'VESPO',
    help: 'vespo: power k of the gamma weight for A < 0',
  },
  vespo_lambda_neg: {
    kind: 'num',
    default: 2,
    min: 0,
    max: 20,
    group: OBJ,
    trl: true,
    paper: 'VESPO',
    help: 'vespo: decay lambda of the gamma weight for A < 0',
  },
  clip_cov_ratio: {
    kind: 'num',
    default: 0.0002,
    min: 0,
    max: 1,
    group: OBJ,
    paper: 'The Entropy Mechanism of RL for Reasoning LMs (Cui et al., 2025)',
    help: 'clip_cov: fraction of tokens (at least 1) whose loss and gradient are dropped, drawn among those with covariance in (clip_cov_lb, clip_cov_ub)',
  },
  clip_cov_lb: {
    kind: 'num',
    default: 1,
    min: -1000,
    max: 1000,
    group: OBJ,
    paper: 'The Entropy Mechanism of RL for Reasoning LMs (Cui et al., 2025)',
    help: 'clip_cov: lower bound of the covariance (A − mean A)·(logp − mean logp) a dropped token must exceed',
  },
  clip_cov_ub: {
    kind: 'num',
    default: 5,
    min: -1000,
    max: 1000,
    group: OBJ,
    paper: 'The Entropy Mechanism of RL for Reasoning LMs (Cui et al., 2025)',
    help: 'clip_cov: upper bound of the covariance a dropped token must stay below',
  },
  kl_cov_ratio: {
    kind: 'num',
    default: 0.0002,
    min: 0,
    max: 1,
    group: OBJ,
    paper: 'The Entropy Mechanism of RL for Reasoning LMs (Cui et al., 2025)',
    help: 'kl_cov: fraction of tokens (at least 1), those of largest covariance, that get ppo_kl_coef · |logp − old| added to their loss',
  },
  ppo_kl_coef: {
    kind: 'num',
    default: 1,
    min: 0,
    max: 100,
    group: OBJ,
    paper: 'The Entropy Mechanism of RL for Reasoning LMs (Cui et al., 2025)',
    help: 'kl_cov: weight of the |logp − old| penalty on the selected tokens',
  },
  off_policy_mask_threshold: {
    kind: 'nullable-num',
    default: null,
    min: 0,
    group: OBJ,
    trl: true,
    paper: 'DeepSeek-V3.2 (2025)',
    help: "drop the policy term of a negative-advantage completion whose mean log(π_old / π) over its tokens exceeds this (TRL's off-policy sequence mask); empty = off",
  },
  importance_sampling_level: {
    kind: 'enum',
    default: 'token',
    values: ['token', 'sequence'],
    group: OBJ,
    trl: true,
    paper: 'GSPO (Zheng et al., 2025)',
    help: 'token: one ratio per token; sequence: one geometric-mean ratio per completion',
  },
  beta: {
    kind: 'num',
    default: 0,
    min: 0,
    max: 10,
    group: OBJ,
    trl: true,
    paper: 'GRPO (DeepSeekMath)',
    help: 'KL penalty to the reference policy (0 = no reference, no KL)',
  },
  use_bias_correction_kl: {
    kind: 'bool',
    default: false,
    group: OBJ,
    trl: true,
    trlDefault: true,
    paper: 'DeepSeek-V3.2 (2025)',
    help: "multiply each token's KL term by its importance ratio (the unbiased reverse-KL gradient); TRL 1.13 defaults to true",
  },
  kl_estimator: {
    kind: 'enum',
    default: 'k3',
    values: ['k1', 'k3'],
    group: OBJ,
    paper: 'Schulman, "Approximating KL divergence" (2020)',
    help: 'k3 = exp(ref−logp) − (ref−logp) − 1 (unbiased, ≥ 0); k1 = logp − ref',
  },
  ref_reset_every: {
    kind: 'int',
    default: 0,
    min: 0,
    max: 1e6,
    group: OBJ,
    paper: 'ProRL (Liu et al., 2025)',
    help: 'reset the reference policy to the current one every N steps (0 = never)',
  },
  entropy_coef: {
    kind: 'num',
    default: 0,
    min: -1,
    max: 1,
    group: OBJ,
    help: 'entropy bonus: subtracts coef × entropy from each token loss',
  },
  use_adaptive_entropy: {
    kind: 'bool',
    default: false,
    group: OBJ,
    trl: true,
    help: "adapt entropy_coef each optimizer step (TRL's controller): up by entropy_coef_delta while the trained tokens' mean entropy is at or below entropy_target, down otherwise; applied only while at or below the target",
  },
  entropy_coef_min: {
    kind: 'num',
    default: 0,
    min: -1,
    max: 1,
    group: OBJ,
    trl: true,
    help: 'use_adaptive_entropy: the lowest entropy_coef',
  },
  entropy_coef_max: {
    kind: 'num',
    default: 1,
    min: -1,
    max: 1,
    group: OBJ,
    trl: true,
    help: 'use_adaptive_entropy: the highest entropy_coef',
  },
  entropy_coef_delta: {
    kind: 'num',
    default: 0.005,
    min: 0,
    max: 1,
    group: OBJ,
    trl: true,
    help: 'use_adaptive_entropy: the step of entropy_coef per optimizer step',
  },
  entropy_target: {
    kind: 'num',
    default: 0.2,
    min: 0,
    max: 100,
    group: OBJ,
    trl: true,
    help: 'use_adaptive_entropy: the mean token entropy (nats) the controller holds the policy above',
  },
  mask_truncated_completions: {
    kind: 'bool',
    default: false,
    group: OBJ,
    trl: true,
    paper: 'DAPO (Yu et al., 2025)',
    help: 'exclude completions that hit the length cap from the loss',
  },
  top_entropy_quantile: {
    kind: 'num',
    default: 1,
    min: 0,
    max: 1,
    exclusiveMin: true,
    group: OBJ,
    trl: true,
    paper: 'Beyond the 80/20 Rule (Wang et al., 2025)',
    help: 'train only on this top fraction of tokens by entropy (1 = all)',
  },
  random_token_fraction: {
    kind: 'num',
    default: 1,
    min: 0,
    max: 1,
    exclusiveMin: true,
    group: OBJ,
    paper: 'Beyond the 80/20 Rule (Wang et al., 2025)',
    help: 'train only on this fraction of tokens, drawn at random each step (1 = all): the control for top_entropy_quantile, as many tokens chosen without looking at their entropy',
  },
  positive_weight: {
    kind: 'num',
    default: 1,
    min: 0,
    max: 10,
    group: OBJ,
    paper: 'Zhu et al., 2025 (W-REINFORCE)',
    help: 'multiplier on positive advantages (PSR)',
  },
  negative_weight: {
    kind: 'num',
    default: 1,
    min: 0,
    max: 10,
    group: OBJ,
    paper: 'Zhu et al., 2025 (W-REINFORCE)',
    help: 'multiplier on negative advantages (NSR)',
  },

  dynamic_sampling: {
    kind: 'bool',
    default: false,
    group: DATA,
    paper: 'DAPO (Yu et al., 2025)',
    help: 'drop groups whose rewards are all equal and refill the batch',
  },
  max_refill_rounds: {
    kind: 'int',
    default: 2,
    min: 0,
    max: 20,
    group: DATA,
    help: 'extra sampling rounds allowed to refill a batch',
  },
  hints: {
    kind: 'bool',
    default: false,
    group: DATA,
    paper: 'Guide / SEELE hints',
    help: 'when a whole group fails, retry it with a prefix of the reference solution forced',
  },
  hint_fraction: {
    kind: 'num',
    default: 0.5,
    min: 0,
    max: 1,
    group: DATA,
    help: 'fraction of the reference solution given as the hint',
  },
  reward_weights: {
    kind: 'weights',
    default: { correctness: 0.9, format: 0.1, partial: 0 },
    min: -10,
    max: 10,
    group: DATA,
    trl: true,
    help: 'weights of the reward components',
    parts: {
      correctness: { trl: true, help: 'weight of the correctness component (1 when the answer is right)' },
      format: {
        trl: true,
        paper: 'DeepSeek-R1; TinyZero',
        help: 'weight of the format component (1 when <think>…</think><answer>…</answer> is followed)',
      },
      partial: { help: 'weight of partial credit (cells right, clauses satisfied…)' },
    },
  },
  overlong_penalty: {
    kind: 'bool',
    default: false,
    group: DATA,
    paper: 'DAPO (Yu et al., 2025)',
    help: 'soft penalty in a window before the length cap',
  },
  overlong_cache_length: {
    kind: 'int',
    default: 8,
    min: 0,
    max: 512,
    group: DATA,
    help: 'width of the overlong window, in tokens',
  },
  noise_p_fn: {
    kind: 'num',
    default: 0,
    min: 0,
    max: 1,
    group: DATA,
    paper: 'Noisy verifiers (Cai et al., 2025)',
    help: 'noisy verifier: probability a correct answer is judged wrong',
  },
  noise_p_fp: {
    kind: 'num',
    default: 0,
    min: 0,
    max: 1,
    group: DATA,
    paper: 'Noisy verifiers (Cai et al., 2025)',
    help: 'noisy verifier: probability a wrong answer is judged right',
  },
  leaky_verifier: {
    kind: 'bool',
    default: false,
    group: DATA,
    help: 'use the family’s deliberately lenient verifier (reward-hacking lesson)',
  },
  reward_source: {
    kind: 'enum',
    default: 'verifier',
    values: ['verifier', 'rlpr', 'mix'],
    group: DATA,
    paper: 'RLPR (Yu et al., 2025)',
    help: 'verifier, rlpr (the policy’s own probability of the reference answer), or a mix',
  },
  rlpr_weight: { kind: 'num', default: 0.5, min: 0, max: 1, group: DATA, help: 'weight of the RLPR reward in the mix' },

  curriculum: {
    kind: 'enum',
    default: 'fixed',
    values: ['fixed', 'ladder'],
    group: CURR,
    restart: true,
    paper: 'SATURN (Liu et al., 2025)',
    help: 'fixed difficulty, or an easy-to-hard ladder that advances on pass@1',
  },
  ladder_start: {
    kind: 'int',
    default: 0,
    min: 0,
    max: 100,
    group: CURR,
    restart: true,
    help: 'the ladder level a run starts at (0 = the easiest; see rlvr tasks for the levels)',
  },
  ladder_window: {
    kind: 'int',
    default: 10,
    min: 1,
    max: 1000,
    group: CURR,
    help: 'steps pooled before the ladder moves',
  },
  ladder_advance_at: {
    kind: 'num',
    default: 0.7,
    min: 0,
    max: 1,
    group: CURR,
    help: 'move up a level when pooled pass@1 reaches this',
  },
  ladder_step_back_at: {
    kind: 'num',
    default: 0.1,
    min: 0,
    max: 1,
    group: CURR,
    help: 'move down when pooled pass@1 falls below this',
  },

  eval_every: {
    kind: 'int',
    default: 10,
    min: 0,
    max: 1e6,
    group: EVAL,
    help: 'held-out pass@k every N steps (0 = never)',
  },
  eval_prompts: {
    kind: 'int',
    default: 32,
    min: 1,
    max: 1024,
    group: EVAL,
    help: 'held-out prompts in each evaluation',
  },
  eval_samples: {
    kind: 'int',
    default: 0,
    min: 0,
    max: 64,
    group: EVAL,
    help: 'samples per held-out prompt (0 = num_generations); pass@k is reported for k up to this',
  },
  rollout_history_steps: {
    kind: 'int',
    default: 20,
    min: 1,
    max: 1000,
    group: EVAL,
    help: 'steps whose rollouts are kept in full for the inspector',
  },
} as const satisfies Record<string, FieldDecl>;

type Table = typeof fieldTable;

/** The TypeScript type of one declared field's value. */
type ValueOf<D> = D extends { kind: 'int' | 'num' }
  ? number
  : D extends { kind: 'nullable-num' }
    ? number | null
    : D extends { kind: 'enum'; values: readonly (infer V)[] }
      ? V
      : D extends { kind: 'bool' }
        ? boolean
        : D extends { kind: 'str' }
          ? string
          : D extends { kind: 'record' }
            ? Record<string, number | string>
            : D extends { kind: 'weights'; parts: infer P }
              ? { -readonly [K in keyof P]: number }
              : never;

/** The run config: one value per declared field (typed, validated, JSON-serialisable). */
export type RunConfig = { -readonly [K in keyof Table]: ValueOf<Table[K]> };

/** Field names in declaration order. */
export const configFields = Object.keys(fieldTable) as (keyof RunConfig)[];

export const fieldDecl = (k: keyof RunConfig): FieldDecl => fieldTable[k];

/**
 * The one rule for what a running run cannot take between steps, so a new run is needed: the fields
 * declared `restart: true` above (they change the compiled graphs, the prompt stream or the model), and
 * the difficulty while a ladder curriculum sets it or while the task it belongs to changes too.
 * `changed` is every field the edit changes.
 */
export function needsRestart(
  k: keyof RunConfig,
  running: Pick<RunConfig, 'curriculum'>,
  changed: readonly (keyof RunConfig)[],
): boolean {
  if ((fieldTable[k] as FieldDecl).restart === true) return true;
  return k === 'difficulty' && (running.curriculum === 'ladder' || changed.includes('task'));
}

/**
 * Rules between fields, each charged to one field (the one the message names). Checked after every
 * field is valid on its own.
 */
export const crossFieldRules: { field: keyof RunConfig; rule: string; check: (c: RunConfig) => string | null }[] = [
  {
    field: 'epsilon_high',
    rule: '≥ epsilon',
    check: (c) => (c.epsilon_high < c.epsilon ? `must be >= epsilon (${c.epsilon}), got ${c.epsilon_high}` : null),
  },
  {
    field: 'random_token_fraction',
    rule: 'top_entropy_quantile = 1',
    check: (c) =>
      c.random_token_fraction < 1 && c.top_entropy_quantile < 1
        ? `cannot be set with top_entropy_quantile (${c.top_entropy_quantile}): choose tokens at random or by entropy, not both`
        : null,
  },
  {
    field: 'ladder_step_back_at',
    rule: '< ladder_advance_at',
    check: (c) =>
      c.ladder_step_back_at >= c.ladder_advance_at ? `must be below ladder_advance_at (${c.ladder_advance_at})` : null,
  },
  {
    field: 'multi_objective_aggregation',
    rule: 'normalize_then_sum needs advantage_estimator grpo and reward_source verifier',
    check: (c) =>
      c.multi_objective_aggregation === 'normalize_then_sum' &&
      (c.advantage_estimator !== 'grpo' || c.reward_source !== 'verifier')
        ? `normalize_then_sum needs advantage_estimator grpo and reward_source verifier (its reward functions apart), got ${c.advantage_estimator} and ${c.reward_source}`
        : null,
  },
  {
    field: 'steps_per_generation',
    rule: '0, or a multiple of minibatches that divides prompts_per_step × num_generations',
    check: (c) =>
      c.steps_per_generation > 0 &&
      (c.steps_per_generation % c.minibatches !== 0 ||
        (c.prompts_per_step * c.num_generations) % c.steps_per_generation !== 0)
        ? `must be 0 or a multiple of minibatches (${c.minibatches}) that divides prompts_per_step × num_generations (${c.prompts_per_step * c.num_generations}), got ${c.steps_per_generation}`
        : null,
  },
  {
    field: 'target_modules',
    rule: "PEFT's module names",
    check: (c) => (c.lora_r > 0 ? targetsProblem(parseTargets(c.target_modules)) : null),
  },
  {
    field: 'lora_dropout',
    rule: '0 (no dropout in the engine)',
    check: (c) =>
      c.lora_r > 0 && c.lora_dropout > 0
        ? `must be 0: the engine has no dropout (TRL's disable_dropout, which the export sets, zeroes it too), got ${c.lora_dropout}`
        : null,
  },
  {
    field: 'minibatches',
    rule: 'divides prompts_per_step × num_generations',
    check: (c) =>
      (c.prompts_per_step * c.num_generations) % c.minibatches !== 0
        ? `must divide prompts_per_step × num_generations (${c.prompts_per_step * c.num_generations}), got ${c.minibatches}`
        : null,
  },
];
