import { BpeTokenizer } from './bpe-tokenizer.ts';
import type { HfTokenizerSpec, Manifest } from './checkpoint.ts';
import { charCodec, tokenizerFileNames, type TextCodec, type TokenizerFiles } from './text-codec.ts';

export class TextCodecError extends Error {}

function hfCodec(spec: HfTokenizerSpec, files: TokenizerFiles, name: string): TextCodec {
  const json = (f: string): Record<string, unknown> => {
    try {
      return JSON.parse(files[f]!) as Record<string, unknown>;
    } catch (e) {
      throw new TextCodecError(`${name}: ${f}: not valid JSON (${(e as Error).message})`);
    }
  };
  const tok = new BpeTokenizer(
    json(spec.file),
    spec.config ? json(spec.config) : {},
    spec.chatTemplate ? files[spec.chatTemplate]! : null,
  );
  if (!spec.eosTokenIds.length)
    throw new TextCodecError(
      `${name}: the tokenizer names no end-of-sequence token (generation_config.json eos_token_id, ` +
        'tokenizer_config.json eos_token)',
    );
  const texts = new Map<number, string>();
  return {
    encodePrompt: (text) => tok.encode(text, true),
    encodeContinuation: (text) => tok.encode(text, false),
    decode: (ids) => tok.decode([...ids]),
    tokenText: (id) => {
      let t = texts.get(id);
      if (t === undefined) texts.set(id, (t = tok.decode([id])));
      return t;
    },
    eos: spec.eosTokenIds[0]!,
    stopTokens: new Set(spec.eosTokenIds),
  };
}

const cache = new WeakMap<Manifest, TextCodec>();

/**
 * The codec of a checkpoint: the characters, or its own tokenizer from `files` (refused, naming the
 * file, when one the manifest names is missing).
 */
export function codecOf(m: Manifest, files: TokenizerFiles | undefined): TextCodec {
  if (m.tokenizer.kind !== 'hf') return charCodec;
  let c = cache.get(m);
  if (c) return c;
  for (const f of tokenizerFileNames(m))
    if (typeof files?.[f] !== 'string')
      throw new TextCodecError(`${m.name} has its own tokenizer, but its file ${f} was not given with the checkpoint`);
  c = hfCodec(m.tokenizer, files!, m.name);
  cache.set(m, c);
  return c;
}
