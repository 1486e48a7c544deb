"""A model that is not the playground's: a random-init Qwen2ForCausalLM with a byte-level BPE tokenizer
trained here with the `tokenizers` library, its vocabulary extended past 65,536 entries (as Qwen2's
151k is) so token ids need 32 bits. Saved with save_pretrained to argv[1]; used by
src/export/trl/recorder-run.test.ts.
"""
import sys

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

VOCAB = 70_000
CORPUS = [f"what is {a} plus {b}? the answer is {a + b}." for a in range(40) for b in range(40)]


def build(out):
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    bpe.train_from_iterator(CORPUS, trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    # Words the model can sample but no prompt holds, up to a real model's vocabulary size.
    tok.add_tokens([f"<w{i}>" for i in range(VOCAB - len(tok))])
    assert len(tok) == VOCAB, len(tok)
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=VOCAB,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
        tie_word_embeddings=True,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
        bos_token_id=None,
    )
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(out)
    tok.save_pretrained(out)


if __name__ == "__main__":
    build(sys.argv[1])
