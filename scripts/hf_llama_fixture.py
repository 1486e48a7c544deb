"""Builds a Hugging Face Llama or Qwen2 folder with the real transformers and tokenizers, and the
reference figures src/model/hf-llama-parity.test.ts compares the playground's engine with.

usage: hf_llama_fixture.py OUT --arch llama|qwen2 --shape tiny|smollm2-135m [--tied] [--shard-size N]

OUT gets: the model folder (save_pretrained: config.json, model.safetensors or its shards and index,
generation_config.json, tokenizer.json, tokenizer_config.json, chat_template.jinja) from a random
initialisation, with a byte-level BPE tokenizer trained here by `tokenizers` on generated text; and
  lines.txt       text lines to score (Unicode, special tokens)
  unigram-tokenizer.json  a Unigram tokenizer trained by `tokenizers` (a model type the import refuses)
  logits.f32      transformers' float32 logits [T, V] of the first lines (3, or 1 at the 135M shape), little-endian
  reference.json  per line: transformers' input_ids and each token's float32 log-prob (first: null);
                  where the first lines' logits lie in logits.f32; greedy generate() of 3 prompts; the chat
                  template rendered by apply_chat_template; and 1000 strings with the ids and decoded text of
                  `tokenizers`.
Nothing is downloaded.
"""
import argparse
import json
import os
import random

import torch
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|bos|>"]
# Qwen2's pre-tokenizer pattern (its tokenizer.json), so the two fixtures exercise different splitters.
QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
POOLS = [
    "abcdefghijklmnopqrstuvwxyz     ",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    ".,;:!?'\"()[]{}<>+-*/=_#@&%$|\\^~`",
    "éèêëàâäôöûüçñßøåæœÉÀÇ",
    "中文字符测试日本語のテキスト한국어",
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВ",
    "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
    "😀🎉🚀👍🏽🇫🇷✨∑∫√∞≠≤≥→←",
    "\t  \u00a0\u2003",
    "e\u0301a\u0308o\u0303",
]


def random_text(rng: random.Random, n: int, newlines: bool) -> str:
    out = []
    while len(out) < n:
        r = rng.random()
        if r < 0.05:
            out.append(rng.choice(SPECIALS[:3]))
        elif r < 0.08 and newlines:
            out.append("\n")
        elif r < 0.45:
            out.append(rng.choice(["the ", "playground ", "token", " model", "don't ", "we'll ", "1234", " 3.14"]))
        else:
            out.append(rng.choice(rng.choice(POOLS)))
    return "".join(out)


def train_tokenizer(arch: str, vocab_size: int, seed: int) -> Tokenizer:
    rng = random.Random(seed)
    corpus = [random_text(rng, rng.randint(5, 80), True) for _ in range(3000)]
    tok = Tokenizer(models.BPE())
    if arch == "qwen2":
        tok.normalizer = normalizers.NFC()
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(QWEN2_PATTERN, behavior="isolated", invert=False),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    else:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=SPECIALS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus, trainer)
    if arch == "llama":
        # Llama 2 and 3 put a BOS token before every text: the post-processor adds it.
        bos = tok.token_to_id("<|bos|>")
        tok.post_processor = processors.TemplateProcessing(
            single="<|bos|> $A", pair="<|bos|> $A <|bos|> $B", special_tokens=[("<|bos|>", bos)]
        )
    return tok


def build_model(arch: str, shape: str, vocab: int, tied: bool, seed: int):
    torch.manual_seed(seed)
    if shape == "smollm2-135m":
        dims = dict(
            hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3,
            max_position_embeddings=8192, rope_theta=100000.0, rms_norm_eps=1e-5,
        )
    else:
        dims = dict(
            hidden_size=48, intermediate_size=80, num_hidden_layers=3, num_attention_heads=6, num_key_value_heads=2,
            max_position_embeddings=256, rope_theta=500.0, rms_norm_eps=1e-5,
        )
    common = dict(
        vocab_size=vocab, tie_word_embeddings=tied, initializer_range=0.2 if shape == "tiny" else 0.02,
        bos_token_id=None, eos_token_id=None, pad_token_id=None, **dims,
    )
    if arch == "qwen2":
        model = Qwen2ForCausalLM(Qwen2Config(use_sliding_window=False, **common))
    else:
        model = LlamaForCausalLM(LlamaConfig(**common))
    with torch.no_grad():
        for name, p in model.named_parameters():
            # transformers initialises norms to 1 and biases to 0: random ones test that they are read and applied.
            if name.endswith("norm.weight"):
                p.copy_(1 + 0.3 * torch.randn_like(p))
            elif name.endswith(".bias"):
                p.copy_(0.3 * torch.randn_like(p))
    return model.float().eval()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--arch", choices=["llama", "qwen2"], required=True)
    ap.add_argument("--shape", choices=["tiny", "smollm2-135m"], default="tiny")
    ap.add_argument("--tied", action="store_true")
    ap.add_argument(
        "--shard-size", default=None, help="save_pretrained max_shard_size, e.g. 20KB (sharded safetensors)"
    )
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(1)
    os.makedirs(a.out, exist_ok=True)

    raw = train_tokenizer(a.arch, 600 if a.shape == "tiny" else 49152, a.seed)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=raw, bos_token="<|bos|>", eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    fast.chat_template = CHAT_TEMPLATE
    # a few embedding rows no token uses, as real models have
    vocab = 49152 if a.shape == "smollm2-135m" else len(fast) + 7
    model = build_model(a.arch, a.shape, vocab, a.tied, a.seed)
    kw = {"max_shard_size": a.shard_size} if a.shard_size else {}
    model.save_pretrained(a.out, safe_serialization=True, **kw)
    fast.save_pretrained(a.out)

    rng = random.Random(a.seed + 1)
    lines = [random_text(rng, rng.randint(1, 40), False) for _ in range(40)]
    lines += ["", "<|im_start|>user", "x", "naïve café 😀 <|im_end|>"]
    with open(os.path.join(a.out, "lines.txt"), "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    scored = []
    logits_out = []
    logit_rows = []
    with torch.no_grad():
        for i, line in enumerate(lines):
            ids = fast(line)["input_ids"]
            if len(ids) < 2:
                scored.append({"ids": ids, "logprobs": [None] * len(ids)})
                continue
            logits = model(torch.tensor([ids])).logits[0].float()
            lp = torch.log_softmax(logits, -1)
            scored.append({"ids": ids, "logprobs": [None] + [lp[t - 1, ids[t]].item() for t in range(1, len(ids))]})
            if len(logits_out) < (3 if a.shape == "tiny" else 1):
                logits_out.append({"ids": ids, "offset": sum(len(x["ids"]) for x in logits_out) * vocab})
                logit_rows.append(logits.contiguous().numpy().astype("<f4").tobytes())
    # Greedy generations, one prompt at a time (no padding on this side): the engine's batched
    # KV-cache sampler, which left-pads the batch, must give the same tokens.
    greedy = []
    with torch.no_grad():
        for line in lines:
            ids = fast(line)["input_ids"]
            if 2 <= len(ids) <= 24 and len(greedy) < 3:
                out = model.generate(
                    torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long), max_new_tokens=8,
                    do_sample=False,
                )
                greedy.append({"prompt": ids, "tokens": out[0, len(ids):].tolist()})
    strings = [random_text(rng, rng.randint(0, 60), True) for _ in range(1000)]
    strings_ref = [
        {"text": s, "ids": raw.encode(s).ids, "decoded": raw.decode(raw.encode(s).ids, skip_special_tokens=False)}
        for s in strings
    ]
    # A tokenizer of another model type (Unigram), for the import's refusal of tokenizers it does not run.
    uni = Tokenizer(models.Unigram())
    uni.pre_tokenizer = pre_tokenizers.Metaspace()
    uni.train_from_iterator(
        strings, trainers.UnigramTrainer(vocab_size=800, special_tokens=SPECIALS, show_progress=False)
    )
    uni.save(os.path.join(a.out, "unigram-tokenizer.json"))
    chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2? ünïcode 😀"}]
    ref = {
        "vocab_size": vocab,
        "lines": scored,
        "logits": logits_out,
        "greedy": greedy,
        "strings": strings_ref,
        "chat": {"messages": chat, "text": fast.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)},
    }
    with open(os.path.join(a.out, "logits.f32"), "wb") as f:
        f.write(b"".join(logit_rows))
    with open(os.path.join(a.out, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
