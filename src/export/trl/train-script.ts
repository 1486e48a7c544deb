/**
 * train_grpo.py: TRL's GRPOConfig and GRPOTrainer with this run's values. Fields that TRL's
 * GRPOConfig has keep their name and value; the batch shape is derived from prompts_per_step,
 * num_generations and minibatches; every field TRL lacks is listed as a comment saying what would
 * approximate it.
 */
import type { RunConfig } from '../../rl/config.ts';
import { lossTypeDecl, trlLossTypeNames } from '../../rl/loss-types.ts';
import type { Difficulty } from '../../tasks/types.ts';
import { parseTargets } from '../../model/lora.ts';
import { pyValue } from './python-literal.ts';

/** RunConfig fields passed to GRPOConfig under the same name. */
export const trlFields = [
  'num_generations',
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'repetition_penalty',
  'max_completion_length',
  'learning_rate',
  'adam_beta1',
  'adam_beta2',
  'weight_decay',
  'max_grad_norm',
  'num_iterations',
  'scale_rewards',
  'multi_objective_aggregation',
  'epsilon',
  'epsilon_high',
  'delta',
  'sapo_temperature_pos',
  'sapo_temperature_neg',
  'vespo_k_pos',
  'vespo_lambda_pos',
  'vespo_k_neg',
  'vespo_lambda_neg',
  'importance_sampling_level',
  'beta',
  'use_bias_correction_kl',
  'off_policy_mask_threshold',
  'use_adaptive_entropy',
  'entropy_coef_min',
  'entropy_coef_max',
  'entropy_coef_delta',
  'entropy_target',
  'mask_truncated_completions',
  'top_entropy_quantile',
  'seed',
] as const satisfies readonly (keyof RunConfig)[];

/** The loss_type values TRL 1.13's GRPOConfig accepts (its `loss_type` field): those the loss-type table marks. */
export const trlLossTypes = trlLossTypeNames;

/**
 * loss_type as GRPOConfig takes it: the same name where TRL has the objective; otherwise the nearest
 * TRL objective the loss-type table names, with a comment that says plainly TRL lacks ours.
 */
export function trlLossType(c: RunConfig): { value: string; comment: string } {
  const trl = lossTypeDecl(c.loss_type).trl;
  if (trl === true) return { value: c.loss_type, comment: '' };
  return { value: trl.nearest, comment: `TRL 1.13 has no loss_type "${c.loss_type}" ${trl.note}` };
}

/**
 * What approximates each field TRL's GRPOConfig lacks (or takes in another form): every config field
 * is either in trlFields, or loss_type, or here (src/export/trl/trl-mapping.test.ts holds that).
 */
function advantageNote(c: RunConfig): string {
  switch (c.advantage_estimator) {
    case 'grpo':
      return "TRL's GRPO advantage (reward minus group mean, scaled per scale_rewards)";
    case 'rloo':
      return "no GRPOConfig field: TRL's RLOOTrainer uses the leave-one-out baseline";
    case 'signed':
      return (
        'no TRL field: nearest is a ±1 correctness reward (REWARD_WEIGHTS correctness 2, format 0, minus 1) ' +
        'with scale_rewards="none"'
      );
    default:
      return (
        `no TRL field: REINFORCE++${c.advantage_estimator === 'reinforce_plus_plus_baseline' ? '-baseline' : ''} ` +
        `is veRL's algorithm.adv_estimator=${c.advantage_estimator}; nearest in TRL is ` +
        'scale_rewards="batch"' +
        (c.advantage_estimator === 'reinforce_plus_plus' ? ' (TRL always subtracts the group mean)' : '')
      );
  }
}

export function untranslated(c: RunConfig): [keyof RunConfig, string][] {
  return [
    ['version', 'the config format version: nothing to carry'],
    ['task', 'mapped: prompts.jsonl and rewards.py are this task family'],
    ['prompts_per_step', 'mapped: generation_batch_size = prompts_per_step × num_generations (above)'],
    [
      'minibatches',
      'mapped: each generation batch feeds `minibatches` optimizer steps (per_device_train_batch_size above)',
    ],
    [
      'steps_per_generation',
      c.steps_per_generation > 0
        ? "mapped: generation_batch_size // per_device_train_batch_size (above) is TRL's " +
          'steps_per_generation, gradient_accumulation_steps = steps_per_generation // minibatches'
        : "mapped: 0 is TRL's steps_per_generation = minibatches (one micro-batch per optimizer step), " +
          "except that TRL then divides dapo/cispo/vespo's token sum by the batch's tokens / minibatches, " +
          "the playground by all of the batch's tokens (set steps_per_generation = minibatches for TRL's)",
    ],
    [
      'warmup_steps',
      'mapped: our steps × optimizer steps per step, with lr_scheduler_type="constant_with_warmup" ' +
        "(TRL's first step has lr 0, ours lr/warmup_steps)",
    ],
    [
      'reward_weights',
      'mapped: reward_weights=rewards.TRL_REWARD_WEIGHTS, one weight per reward function in rewards.REWARD_FUNCS',
    ],
    ['leaky_verifier', 'mapped: rewards.LEAKY'],
    [
      'overlong_penalty',
      c.overlong_penalty
        ? 'mapped: rewards.overlong_reward (DAPO soft punishment, weight 1); TRL also has ' +
          'trl.rewards.get_soft_overlong_punishment'
        : 'off; rewards.overlong_reward would add it',
    ],
    ['overlong_cache_length', 'mapped: rewards.OVERLONG["cache_length"]'],
    ['advantage_estimator', advantageNote(c)],
    [
      'kl_estimator',
      c.kl_estimator === 'k3'
        ? "TRL's KL term is the k3 estimator (as here)"
        : "no TRL field: TRL's KL term is always k3",
    ],
    [
      'ref_reset_every',
      c.ref_reset_every > 0
        ? 'mapped: sync_ref_model=True, ref_model_mixup_alpha=1.0 (a copy), ref_model_sync_steps above'
        : 'never; sync_ref_model=True with ref_model_mixup_alpha=1.0 would reset the reference',
    ],
    ['clip_cov_ratio', "no TRL field (loss_type clip_cov, veRL's policy_loss.clip_cov_ratio)"],
    ['clip_cov_lb', "no TRL field (loss_type clip_cov, veRL's policy_loss.clip_cov_lb)"],
    ['clip_cov_ub', "no TRL field (loss_type clip_cov, veRL's policy_loss.clip_cov_ub)"],
    ['kl_cov_ratio', "no TRL field (loss_type kl_cov, veRL's policy_loss.kl_cov_ratio)"],
    ['ppo_kl_coef', "no TRL field (loss_type kl_cov, veRL's policy_loss.ppo_kl_coef)"],
    [
      'entropy_coef',
      "not passed: TRL 1.13's entropy_coef subtracts coef × the token mean of the entropy whatever the " +
        "loss_type, ours weighs each token's entropy as its loss (the same for bnpo, and for dapo, cispo, " +
        'vespo, clip_cov and kl_cov with one minibatch: set entropy_coef there by hand)',
    ],
    [
      'random_token_fraction',
      c.random_token_fraction < 1
        ? 'no TRL field: training a random subset of tokens needs a GRPOTrainer subclass that masks the per-token loss'
        : 'off (all tokens)',
    ],
    ['positive_weight', 'no TRL field: scale positive advantages in a GRPOTrainer subclass (PSR/NSR, W-REINFORCE)'],
    ['negative_weight', 'no TRL field: scale negative advantages in a GRPOTrainer subclass'],
    ['dynamic_sampling', 'no TRL field: nearest is more num_generations, so fewer groups have zero reward variance'],
    ['max_refill_rounds', 'no TRL field (dynamic sampling)'],
    [
      'hints',
      'no TRL field: prefixing part of the reference to prompts whose group all failed needs a custom generation step',
    ],
    ['hint_fraction', 'no TRL field (hints)'],
    [
      'curriculum',
      c.curriculum === 'fixed'
        ? 'fixed: prompts.jsonl is at one difficulty'
        : 'no TRL field: nearest is prompts.jsonl files per level, concatenated easy to hard, with ' +
          'shuffle_dataset=False',
    ],
    ['ladder_start', 'no TRL field (curriculum)'],
    ['ladder_window', 'no TRL field (curriculum)'],
    ['ladder_advance_at', 'no TRL field (curriculum)'],
    ['ladder_step_back_at', 'no TRL field (curriculum)'],
    ['noise_p_fn', 'no TRL field: flip correctness_reward from 1 to 0 with this probability in rewards.py'],
    ['noise_p_fp', 'no TRL field: flip correctness_reward from 0 to 1 with this probability in rewards.py'],
    [
      'reward_source',
      c.reward_source === 'verifier'
        ? 'verifier: the reward functions in rewards.py'
        : "no TRL field: RLPR (the policy's own probability of the reference answer) needs a reward " +
          'function with access to the model',
    ],
    ['rlpr_weight', 'no TRL field (reward_source)'],
    [
      'eval_every',
      'nearest: eval_strategy="steps" and eval_steps, with an eval_dataset of held-out seeds ' +
        '0..eval_prompts-1 (`rlvr sample`)',
    ],
    ['eval_prompts', 'see eval_every'],
    ['eval_samples', 'see eval_every (num_generations completions per held-out prompt in TRL)'],
    ['rollout_history_steps', 'nearest: log_completions=True'],
    [
      'lora_r',
      c.lora_r > 0
        ? 'mapped: peft_config=LoraConfig(r=lora_r, ...) passed to the trainer (in main() below)'
        : "0: full fine-tuning, no peft_config (PEFT's LoraConfig r would train adapters)",
    ],
    ['lora_alpha', c.lora_r > 0 ? 'mapped: LoraConfig(lora_alpha=...)' : 'unused (lora_r = 0)'],
    [
      'lora_dropout',
      c.lora_r > 0
        ? "mapped: LoraConfig(lora_dropout=...); TRL's disable_dropout=True (below) sets it to 0 at " +
          'training time, as here'
        : 'unused (lora_r = 0)',
    ],
    [
      'target_modules',
      c.lora_r > 0
        ? "mapped: LoraConfig(target_modules=[...]), PEFT's names (a GPT-2 export has fused attn.c_attn: " +
          'see docs/models.md)'
        : 'unused (lora_r = 0)',
    ],
    [
      'difficulty',
      Object.keys(c.difficulty).length
        ? 'the prompts in prompts.jsonl were generated at this difficulty'
        : "none set: the base checkpoint's measured difficulty (below), as rlvr train uses",
    ],
  ];
}

export function trainScriptSource(c: RunConfig, difficulty: Difficulty): string {
  const optimizerSteps = c.minibatches * c.num_iterations;
  const kw = (name: string, value: string, comment = '') =>
    `        ${name}=${value},${comment ? `  # ${comment}` : ''}`;
  const lines: string[] = [
    '"""GRPO with TRL for the rlvr playground\'s ' + c.task + ' task (written by `rlvr export --format trl`).',
    '',
    'accelerate launch train_grpo.py --model ./hf [--steps N] [--output_dir grpo-out] [--record FILE]',
    '',
    '--model is a transformers checkpoint of the playground model (`rlvr export --format hf`); one',
    '"step" below is one of the playground\'s steps: prompts_per_step prompts × num_generations',
    'completions, used for minibatches × num_iterations optimizer steps. The run is recorded in the',
    "playground's run-record format (trl_record.py), by default to OUTPUT_DIR/run.rlvr.gz.",
    '"""',
    'import argparse',
    'import json',
    'import os',
    '',
    'import torch',
    'from datasets import load_dataset',
    'from transformers import AutoModelForCausalLM, AutoTokenizer',
    'from trl import GRPOConfig',
    '',
    'import rewards',
    'from trl_record import RecordingGRPOTrainer',
    '',
    'HERE = os.path.dirname(os.path.abspath(__file__))',
    `PROMPTS_PER_STEP = ${c.prompts_per_step}`,
    `NUM_GENERATIONS = ${c.num_generations}`,
    `MINIBATCHES = ${c.minibatches}`,
    `STEPS_PER_GENERATION = ${c.steps_per_generation || c.minibatches}`,
    `NUM_ITERATIONS = ${c.num_iterations}`,
    `WARMUP_STEPS = ${c.warmup_steps}`,
    `REF_RESET_EVERY = ${c.ref_reset_every}`,
    '',
    "# The run config's fields that GRPOConfig lacks or takes in another form, and what carries over or",
    '# approximates each:',
    ...untranslated(c).map(([k, note]) => `#   ${k} = ${JSON.stringify(c[k])}: ${note}`),
    `# Prompts were generated at difficulty ${JSON.stringify(difficulty)}.`,
    '',
    '',
    'def main():',
    '    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])',
    '    parser.add_argument("--model", default="./hf", help="transformers checkpoint folder (rlvr export ' +
      '--format hf)")',
    '    parser.add_argument("--steps", type=int, default=200, help="playground steps (generation batches)")',
    '    parser.add_argument("--output_dir", default="grpo-out")',
    '    parser.add_argument("--prompts", default=os.path.join(HERE, "prompts.jsonl"))',
    '    parser.add_argument("--log_completions", action="store_true", help="write every step\'s prompts, ' +
      'completions and rewards to output_dir/completions/completions_STEP.parquet")',
    '    parser.add_argument("--record", metavar="FILE", help="write the run record (every step\'s ' +
      'prompts, completions, rewards, advantages, log-probs and metrics; it opens in the playground) to ' +
      'FILE (default: OUTPUT_DIR/run.rlvr.gz)")',
    '    parser.add_argument("--no_record", action="store_true", help="write no run record")',
    '    args = parser.parse_args()',
    '',
    '    # Batch shape. One playground step samples PROMPTS_PER_STEP × NUM_GENERATIONS completions',
    "    # (TRL's generation_batch_size) and splits them into MINIBATCHES optimizer steps, each of",
    "    # STEPS_PER_GENERATION // MINIBATCHES accumulated micro-batches (TRL's steps_per_generation is",
    '    # generation_batch_size // (per_device_train_batch_size × processes)). NUM_ITERATIONS (μ) reuses',
    '    # each generation batch, as here.',
    '    world = int(os.environ.get("WORLD_SIZE", "1"))',
    '    batch = PROMPTS_PER_STEP * NUM_GENERATIONS',
    '    per_micro_batch = batch // STEPS_PER_GENERATION',
    '    if per_micro_batch % world:',
    '        raise SystemExit(f"{per_micro_batch} completions per micro-batch do not split over {world} processes")',
    '    optimizer_steps_per_step = MINIBATCHES * NUM_ITERATIONS',
    '',
    '    config = GRPOConfig(',
    kw('output_dir', 'args.output_dir'),
    kw('per_device_train_batch_size', 'per_micro_batch // world'),
    kw('gradient_accumulation_steps', 'STEPS_PER_GENERATION // MINIBATCHES'),
    kw('generation_batch_size', 'batch'),
    kw('max_steps', 'args.steps * optimizer_steps_per_step', `${optimizerSteps} optimizer step(s) per playground step`),
    kw('warmup_steps', 'WARMUP_STEPS * optimizer_steps_per_step'),
    kw('lr_scheduler_type', '"constant_with_warmup"', 'the playground keeps the learning rate constant after warm-up'),
    kw('loss_type', pyValue(trlLossType(c).value), trlLossType(c).comment),
    ...trlFields.map((f) => kw(f, pyValue(c[f]))),
    kw(
      'reward_weights',
      'rewards.TRL_REWARD_WEIGHTS',
      `correctness, format, partial${c.overlong_penalty ? ', overlong' : ''}: ${JSON.stringify(c.reward_weights)}`,
    ),
    ...(c.ref_reset_every > 0
      ? [
          kw('sync_ref_model', 'True', 'ref_reset_every: copy the policy into the reference'),
          kw('ref_model_mixup_alpha', '1.0'),
          kw('ref_model_sync_steps', 'REF_RESET_EVERY * optimizer_steps_per_step'),
        ]
      : []),
    kw('adam_epsilon', '1e-08'),
    kw('shuffle_dataset', 'False', 'prompts in the order `rlvr train` draws them'),
    kw('remove_unused_columns', 'False', 'rewards.py reads the "data" column'),
    kw('disable_dropout', 'True', 'the playground model has no dropout'),
    kw('bf16', 'False', 'float32, as in the playground; set True on large models'),
    kw('logging_steps', '1'),
    kw('log_completions', 'args.log_completions'),
    kw('report_to', '"none"'),
    '    )',
    '    tokenizer = AutoTokenizer.from_pretrained(args.model)',
    '    if tokenizer.pad_token is None:',
    '        tokenizer.pad_token = tokenizer.eos_token',
    '    model = AutoModelForCausalLM.from_pretrained(args.model)',
    '    if getattr(model.config, "rlvr_playground", None) is None:',
    "        # Not the playground's export (e.g. a Llama with its own BPE tokenizer): the reward functions read",
    "        # the text TRL decodes, not the ids in the playground's characters.",
    '        rewards.USE_COMPLETION_IDS = False',
    '    dataset = load_dataset("json", data_files=args.prompts, split="train")',
    '    with open(os.path.join(HERE, "run_config.json"), encoding="utf-8") as f:',
    '        run_config = json.load(f)',
    ...(c.lora_r > 0
      ? [
          '    # LoRA (lora_r > 0): the base frozen, rank-r adapters on these modules, as in the playground.',
          '    from peft import LoraConfig',
          '',
          `    target_modules = ${pyValue(parseTargets(c.target_modules))}`,
          '    if model.config.model_type == "gpt2":',
          "        # transformers' GPT-2 fuses q, k and v into attn.c_attn: q_proj/k_proj/v_proj become one rank-r",
          '        # adapter on it (the playground trains three); o_proj, up_proj, down_proj map one to one.',
          '        gpt2_names = {"q_proj": "attn.c_attn", "k_proj": "attn.c_attn", "v_proj": ' +
            '"attn.c_attn", "o_proj": "attn.c_proj", "up_proj": "mlp.c_fc", "down_proj": "mlp.c_proj"}',
          '        target_modules = sorted({gpt2_names[m] for m in target_modules if m in gpt2_names})',
          `    peft_config = LoraConfig(r=${c.lora_r}, lora_alpha=${pyValue(c.lora_alpha)}, ` +
            `lora_dropout=${pyValue(c.lora_dropout)}, target_modules=target_modules, task_type="CAUSAL_LM")`,
        ]
      : ['    peft_config = None  # lora_r = 0: full fine-tuning']),
    '    trainer = RecordingGRPOTrainer(',
    '        model=model,',
    '        peft_config=peft_config,',
    '        processing_class=tokenizer,',
    '        args=config,',
    '        reward_funcs=rewards.REWARD_FUNCS,',
    '        train_dataset=dataset,',
    '        record_path=None if args.no_record else (args.record or os.path.join(args.output_dir, "run.rlvr.gz")),',
    '        run_config=run_config,',
    '    )',
    '    trainer.train()',
    '    trainer.save_model(args.output_dir)',
    '    # Under accelerate launch with several processes, leave the process group before exiting rather',
    '    # than leaving it to interpreter shutdown (torch warns about a process group never destroyed).',
    '    if torch.distributed.is_available() and torch.distributed.is_initialized():',
    '        torch.distributed.destroy_process_group()',
    '',
    '',
    'if __name__ == "__main__":',
    '    main()',
  ];
  return lines.join('\n') + '\n';
}
