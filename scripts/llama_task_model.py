"""Builds a small Llama-architecture model for one task family, as a Hugging Face folder: a byte-level BPE
tokenizer trained by the real `tokenizers` on the task's own text, and a random initialisation by the real
transformers. `rlvr import --format hf` reads the folder; `rlvr pretrain --model MANIFEST` warm-starts it on
the task's references (as the shipped checkpoints were made); `rlvr train --set lora_r=8` trains it with
GRPO and LoRA. scripts/llama-path.sh runs the whole path; docs/models.md describes it.

usage: llama_task_model.py CORPUS.jsonl OUT [--vocab 512] [--hidden 64] [--layers 4] [--heads 4]
                           [--kv-heads 2] [--intermediate 176] [--context 256] [--seed 0]
                           [--torch-sft-steps 0] [--digits]

--torch-sft-steps N: a warm start in PyTorch instead (N AdamW steps of next-token loss on the corpus, 16
texts a step), for a folder that goes straight to TRL (the playground's own warm start is `rlvr pretrain`).
--digits: every digit its own token (a `Digits(individual_digits=True)` pre-tokenizer before the byte-level
one, as Llama 3's and Qwen2's tokenizers split numbers), so no merge joins digits into a multi-digit token.

CORPUS.jsonl: one JSON string per line, the task's prompts and reference completions
(`rlvr pretrain --task T --corpus CORPUS.jsonl` writes it). Nothing is downloaded.
"""
import argparse
import json
import os

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

BOS, EOS, PAD = "<|bos|>", "<|endoftext|>", "<|pad|>"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--vocab", type=int, default=512)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--intermediate", type=int, default=176)
    ap.add_argument("--context", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--torch-sft-steps", type=int, default=0)
    ap.add_argument("--digits", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(1)
    os.makedirs(a.out, exist_ok=True)

    with open(a.corpus, encoding="utf-8") as f:
        texts = [json.loads(line) for line in f if line.strip()]
    tok = Tokenizer(models.BPE())
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.pre_tokenizer = (
        pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), byte_level]) if a.digits else byte_level
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=a.vocab,
        special_tokens=[PAD, BOS, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer)
    # A BOS token before every text, as Llama's tokenizers add it.
    tok.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A", pair=f"{BOS} $A {BOS} $B", special_tokens=[(BOS, tok.token_to_id(BOS))]
    )
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=BOS, eos_token=EOS, pad_token=PAD)

    torch.manual_seed(a.seed)
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=a.hidden,
        intermediate_size=a.intermediate,
        num_hidden_layers=a.layers,
        num_attention_heads=a.heads,
        num_key_value_heads=a.kv_heads,
        max_position_embeddings=a.context,
        rope_theta=10000.0,
        rms_norm_eps=1e-6,
        tie_word_embeddings=True,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
    )
    model = LlamaForCausalLM(config).float()
    if a.torch_sft_steps > 0:
        opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
        gen = torch.Generator().manual_seed(a.seed)
        for _ in range(a.torch_sft_steps):
            pick = torch.randint(len(texts), (16,), generator=gen).tolist()
            batch = fast([texts[i] + EOS for i in pick], return_tensors="pt", padding=True)
            labels = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
            loss = model(**batch, labels=labels).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
    model.generation_config.eos_token_id = fast.eos_token_id
    model.save_pretrained(a.out, safe_serialization=True)
    fast.save_pretrained(a.out)
    ids = [len(tok.encode(t).ids) for t in texts[:2000]]
    print(json.dumps({
        "out": a.out,
        "vocab": len(fast),
        "parameters": sum(p.numel() for p in model.parameters()),
        "texts": len(texts),
        "mean_tokens_per_text": sum(ids) / max(1, len(ids)),
        "mean_chars_per_text": sum(len(t) for t in texts[:2000]) / max(1, min(2000, len(texts))),
    }))


if __name__ == "__main__":
    main()
