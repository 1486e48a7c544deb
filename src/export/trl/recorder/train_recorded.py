"""Trains the tiny model (tiny_model.py) for a few GRPO steps with RecordingGRPOTrainer, as a user of
the rlvr_playground package would: `python train_recorded.py MODEL OUT STEPS NUM_ITERATIONS`, or under
`accelerate launch`. Saves the weights after every step (OUT/checkpoint-N) and TRL's completions
parquet (log_completions=True). Used by src/export/trl/recorder-run.test.ts.
"""
import os
import sys

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOConfig

from rlvr_playground import RecordingGRPOTrainer


def digits(completions, **kwargs):
    """A reward that varies within a group: the share of digit characters."""
    return [sum(c.isdigit() for c in x) / max(1, len(x)) for x in completions]


def has_tag(completions, **kwargs):
    return [1.0 if "<w1" in x else 0.0 for x in completions]


def main(model_dir, out, steps, iterations):
    tok = AutoTokenizer.from_pretrained(model_dir)
    tok.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    pairs = [(3, 4), (12, 7), (25, 30), (1, 1), (9, 18), (33, 2), (5, 5), (17, 21)]
    prompts = [f"what is {a} plus {b}?" for a, b in pairs]
    procs = int(os.environ.get("WORLD_SIZE", "1"))
    per_device = 8 if procs == 1 else 6  # 2 groups of 4 on one process; 3 groups over two (one split between them)
    args = GRPOConfig(
        output_dir=out,
        max_steps=steps,
        per_device_train_batch_size=per_device,
        num_generations=4,
        max_completion_length=10,
        num_iterations=iterations,
        learning_rate=0.05,
        beta=0.0,
        epsilon=0.1,
        logging_steps=1,
        save_strategy="steps",
        save_steps=1,
        save_only_model=True,
        log_completions=True,
        report_to=[],
        seed=7,
        use_cpu=True,
        bf16=False,
        dataloader_num_workers=0,
    )
    trainer = RecordingGRPOTrainer(
        model=model,
        processing_class=tok,
        reward_funcs=[digits, has_tag],
        args=args,
        train_dataset=Dataset.from_dict({"prompt": prompts * 4}),
        record_path=os.path.join(out, "run.rlvr.gz"),
    )
    trainer.train()
    # Under accelerate launch with several processes, leave the process group before exiting, as torch asks
    # (its gloo threads otherwise meet interpreter shutdown), and as the exported train_grpo.py does.
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
