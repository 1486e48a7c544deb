"""A real TRL GRPO run, small enough for a test: writes OUTDIR as TRL 1.13's GRPOTrainer leaves it.

Used by scripts/trl-run-fixture.sh (which sets the offline, one-thread environment). The model is NOT the
playground's: a random-init Qwen2ForCausalLM (hidden 32, 2 layers, 4 heads, 2 kv heads) with a byte-level
BPE tokenizer trained here with the `tokenizers` library on arithmetic text, so completions are in that
tokenizer's own tokens. log_completions=True makes TRL write OUTDIR/completions/completions_NNNNN.parquet
each logging step; save_steps writes OUTDIR/checkpoint-N/trainer_state.json (log_history).

With --format-only the trainer's reward weights are 0 for `correctness` and 1 for `has_tag` (both still
logged): a format-only reward the policy learns to game in a few dozen steps while correctness stays flat
(src/runs/findings/trl-reward-hacking.test.ts checks that `rlvr findings` flags it).

Usage: python scripts/trl_run_fixture.py OUTDIR [--max-steps N] [--seed S] [--format-only] [--learning-rate LR]
"""
import argparse
import random

import torch
from datasets import Dataset
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM
from trl import GRPOConfig, GRPOTrainer


def task_text(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """(prompt, answer) pairs like ("3+4=", "7")."""
    out = []
    for _ in range(n):
        a, b = rng.randint(0, 9), rng.randint(0, 9)
        out.append((f"{a}+{b}=", str(a + b)))
    return out


def train_tokenizer(rng: random.Random) -> PreTrainedTokenizerFast:
    """A byte-level BPE trained on the task's own text (prompt, tagged answer)."""
    corpus = [f"{p}<a>{a}</a>" for p, a in task_text(rng, 2000)]
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    # Only the bytes the task uses (no full byte alphabet): random-init samples then read like the task's
    # own text ("7<a>1", "+3=</a>"), so the rewards below vary from the first step on.
    trainer = trainers.BpeTrainer(vocab_size=64, special_tokens=["<|endoftext|>", "<|pad|>"])
    tok.train_from_iterator(corpus, trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|pad|>")


def correctness(completions, answer, **kwargs):
    """1.0 when the answer inside <a>...</a> is the sum, 0.25 when the sum appears anywhere, else 0."""
    out = []
    for c, a in zip(completions, answer):
        got = c.split("<a>", 1)[1].split("</a>", 1)[0] if "<a>" in c else None
        out.append(1.0 if got is not None and got.strip() == a else 0.25 if a in c else 0.0)
    return out


def has_tag(completions, **kwargs):
    """1.0 with an <a> tag, 0.5 with a bare "<", else 0."""
    return [1.0 if "<a>" in c else 0.5 if "<" in c else 0.0 for c in completions]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--max-steps", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--format-only", action="store_true")
    ap.add_argument("--learning-rate", type=float, default=1e-3)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)
    tokenizer = train_tokenizer(rng)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        bos_token_id=tokenizer.eos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    model = Qwen2ForCausalLM(config)
    pairs = task_text(rng, 64)
    dataset = Dataset.from_dict({"prompt": [p for p, _ in pairs], "answer": [a for _, a in pairs]})
    grpo = GRPOConfig(
        output_dir=args.outdir,
        max_steps=args.max_steps,
        per_device_train_batch_size=12,  # 3 prompts x num_generations 4 per step
        num_generations=4,
        max_completion_length=12,
        learning_rate=args.learning_rate,
        logging_steps=1,
        save_steps=2,
        log_completions=True,
        num_completions_to_print=0,
        report_to="none",
        use_cpu=True,
        bf16=False,
        seed=args.seed,
        temperature=1.0,
        dataloader_num_workers=0,
        **({"reward_weights": [0.0, 1.0]} if args.format_only else {}),
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[correctness, has_tag],
        args=grpo,
        train_dataset=dataset,
        processing_class=tokenizer,
    )
    trainer.train()


if __name__ == "__main__":
    main()
