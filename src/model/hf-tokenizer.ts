import { PAD, SPECIALS, tokenizerSpec } from './tokenizer.ts';

/**
 * Our character tokenizer (tokenizer.ts) as a Hugging Face `tokenizers` file. The model is BPE with
 * no merges: with no pre-tokenizer the whole text is one word, BPE splits it into characters and
 * never merges them back, so every character maps to its own id. (WordLevel would be the obvious
 * choice, but transformers.js has no WordLevel model.) The six special strings are added tokens,
 * matched before the model runs, as our encoder matches the tags. <pad> and <eos> are special
 * (dropped by skip_special_tokens); the think/answer tags are not, because they are part of the text.
 */
export function hfTokenizerJson(): Record<string, unknown> {
  const vocab: Record<string, number> = {};
  SPECIALS.forEach((s, i) => (vocab[s] = i));
  [...tokenizerSpec.chars].forEach((ch, i) => (vocab[ch] = SPECIALS.length + i));
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: id <= 1,
    })),
    normalizer: null,
    pre_tokenizer: null,
    post_processor: null,
    // Fuse joins the tokens with nothing between them (without a decoder they are joined by spaces).
    decoder: { type: 'Fuse' },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: [],
    },
  };
}

export function hfTokenizerConfig(contextLength: number): Record<string, unknown> {
  const addedTokensDecoder: Record<string, unknown> = {};
  SPECIALS.forEach((content, id) => {
    addedTokensDecoder[String(id)] = {
      content,
      lstrip: false,
      normalized: false,
      rstrip: false,
      single_word: false,
      special: id <= 1,
    };
  });
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    model_max_length: contextLength,
    // Our sequences are left-padded prompts (layout.ts), so batched generation pads on the left.
    padding_side: 'left',
    pad_token: SPECIALS[PAD],
    eos_token: '<eos>',
    clean_up_tokenization_spaces: false,
    added_tokens_decoder: addedTokensDecoder,
  };
}
