/** README.md of a TRL export: how to run it on a GPU machine, starting from the Hugging Face export. */
import type { RunConfig } from '../../rl/config.ts';
import type { Difficulty } from '../../tasks/types.ts';

export function readmeSource(c: RunConfig, difficulty: Difficulty, promptCount: number): string {
  return `# GRPO with TRL: ${c.task}

Written by \`rlvr export --format trl\` from an rlvr playground run config.

| file | what it is |
|---|---|
| \`train_grpo.py\` | TRL's \`GRPOConfig\` and \`GRPOTrainer\` with the run's values; fields TRL lacks are \
listed as comments with what would approximate them |
| \`rewards.py\` | the ${c.task} verifier ported from the playground's TypeScript (same rewards on every \
completion, tested), as TRL reward functions: correctness, format, \
partial${c.overlong_penalty ? ', overlong' : ''} with weights ${JSON.stringify(c.reward_weights)}; standard \
library only |
| \`trl_record.py\`, \`rlvr_record.py\` | the run record: \`RecordingGRPOTrainer\` (TRL's \`GRPOTrainer\` plus \
a capture of each generation batch and a callback, TRL unchanged) and the writer of the playground's \
run-record format (standard library only) |
| \`run_config.json\` | the playground run config this project was exported from (the run record carries it) |
| \`prompts.jsonl\` | ${promptCount} training prompts from the playground's generator at difficulty \
\`${JSON.stringify(difficulty)}\`, in the order \`rlvr train --seed ${c.seed}\` draws them (never the held-out \
evaluation seeds 0..${c.eval_prompts - 1}); columns \`prompt\`, \`data\` (the instance, JSON text, read by \
rewards.py), \`answer\`, \`reference\`, \`seed\` |

## Run it on a GPU machine

1. Export the model as a transformers GPT-2 checkpoint (in the playground folder):

   \`\`\`sh
   npx rlvr export --format hf --model runs/my-run/manifest.json --out hf
   \`\`\`

   (any checkpoint manifest: a shipped one under \`public/checkpoints/\`, one from \`rlvr train\`, or one \
saved from the browser).

2. Copy this folder and \`hf/\` to the GPU machine, then:

   \`\`\`sh
   pip install trl transformers accelerate datasets
   accelerate launch train_grpo.py --model ./hf --steps 200 --output_dir grpo-out
   \`\`\`

   \`--steps\` counts playground steps (${c.prompts_per_step} prompts × ${c.num_generations} completions each). With
   several GPUs, \`accelerate config\` first (or \`accelerate launch --num_processes N\`); the per-device batch
   is derived from \`WORLD_SIZE\`. For DeepSpeed, \`pip install deepspeed\` and
   \`accelerate launch --use_deepspeed --zero_stage 2 train_grpo.py --model ./hf\` (or a DeepSpeed
   config via \`accelerate config\`).

   On CPUs only, \`accelerate launch --cpu --num_processes 2\` starts one process (several need
   mpirun); \`ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 train_grpo.py …\`
   starts two that train together over gloo. \`--log_completions\` writes every step's prompts,
   completions and rewards to \`grpo-out/completions/\`.

   Every run also writes its **run record**, \`grpo-out/run.rlvr.gz\` (\`--record FILE\` writes it elsewhere,
   \`--no_record\` not at all): per step, the prompts, the completions (text and token ids), each reward
   function's reward and the total, the advantages TRL trained on, the sampling policy's per-token
   log-probs, and TRL's logged metrics that mean what the playground's do. It opens in the playground's
   inspector. With several processes the main one writes it, with every process's completions.

3. The trained model is a transformers checkpoint in \`grpo-out/\`. Back in the playground folder,
   \`npx rlvr import --format hf grpo-out --out runs/from-trl\` makes it a playground checkpoint
   (\`rlvr eval --model runs/from-trl/manifest.json\`, or Keep & share → Import Hugging Face in the page).

Check the reward functions on their own (no packages needed):

\`\`\`sh
head -3 prompts.jsonl | python3 -c 'import json,sys; [print(json.dumps({"completion": r["reference"], "data": \
r["data"]})) for r in map(json.loads, sys.stdin)]' | python3 rewards.py
\`\`\`

Every reference scores the full reward.

## Notes

- \`rewards.py\` decodes TRL's \`completion_ids\` with the playground's vocabulary, because TRL decodes
  completions with \`skip_special_tokens=True\`, which would drop the \`<think>\`/\`<answer>\` tags if the
  tokenizer marks them special. For a model with another tokenizer (one that is not the playground's
  export, e.g. a Llama with its own BPE tokenizer) \`train_grpo.py\` sets \`USE_COMPLETION_IDS = False\`
  and the rewards read TRL's decoded text; its run record then holds that tokenizer's text and tokens.
- The model's context (\`n_positions\`) must hold the longest prompt plus \`max_completion_length\`
  (${c.max_completion_length}) tokens.
- TRL's loss and advantage code is its own: the same settings give the same objective as the
  playground, not bit-identical training runs.
`;
}
