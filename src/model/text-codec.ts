import * as chars from './tokenizer.ts';

/**
 * Text to a model's token ids and back, as the trainer, the evaluation, the SFT warm start and the
 * token view need it: the playground's characters (tokenizer.ts), or an imported model's own
 * tokenizer.json (hf-codec.ts, kept apart so the page's main bundle does not carry tokenizers.js). Task prompts are
 * laid out in the model's tokens; verifiers read
 * the decoded text.
 */
export interface TextCodec {
  /**
   * The ids of a prompt or a reference text (a Hugging Face tokenizer adds its own special tokens, e.g. BOS, as
   * transformers does by default).
   */
  encodePrompt(text: string): number[];
  /** The ids of text that continues a prompt (no special tokens added). */
  encodeContinuation(text: string): number[];
  decode(ids: readonly number[]): string;
  /** One token's text, for the token view. */
  tokenText(id: number): string;
  /** The token that ends a reference completion (the SFT warm start appends it). */
  readonly eos: number;
  /** The tokens that end a sampled completion. */
  readonly stopTokens: ReadonlySet<number>;
}

export const charCodec: TextCodec = {
  encodePrompt: chars.encode,
  encodeContinuation: chars.encode,
  decode: (ids) => chars.decode(ids),
  tokenText: chars.tokenText,
  eos: chars.EOS,
  stopTokens: new Set([chars.EOS]),
};

/**
 * The text files an imported checkpoint's tokenizer is made of, by the names its manifest gives
 * (HfTokenizerSpec: tokenizer.json, tokenizer_config.json, chat_template.jinja), as text. They travel
 * with the run's base so a run can be written out, snapshotted and reopened with its tokenizer.
 */
export type TokenizerFiles = Record<string, string>;

/** The names of the tokenizer files a manifest needs (none for the character tokenizer). */
export function tokenizerFileNames(m: {
  tokenizer: { kind: string; file?: string; config?: string; chatTemplate?: string };
}): string[] {
  // A structural type, not checkpoint.ts's Manifest: checkpoint.ts imports policy.ts, which imports this.
  const t = m.tokenizer;
  if (t.kind !== 'hf') return [];
  return [t.file, t.config, t.chatTemplate].filter((f): f is string => typeof f === 'string');
}
