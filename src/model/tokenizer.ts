/**
 * Character-level tokenizer shared by every task family: printable ASCII and newline, plus special
 * tokens for padding, end of sequence and the think/answer tags (each tag is one token).
 */
export const PAD = 0;
export const EOS = 1;
export const SPECIALS = ['<pad>', '<eos>', '<think>', '</think>', '<answer>', '</answer>'] as const;
const TAGS = SPECIALS.slice(2);
const FIRST_CHAR = SPECIALS.length;
const CHARS = '\n' + Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');

export const VOCAB_SIZE = FIRST_CHAR + CHARS.length;

export interface TokenizerSpec {
  kind: 'char';
  specials: readonly string[];
  chars: string;
}

export const tokenizerSpec: TokenizerSpec = { kind: 'char', specials: SPECIALS, chars: CHARS };

const charIndex = new Map<string, number>([...CHARS].map((c, i) => [c, FIRST_CHAR + i]));

export class TokenizeError extends Error {}

/** Encodes text; tags become single tokens. Characters outside the vocabulary are an error naming them. */
export function encode(text: string): number[] {
  const out: number[] = [];
  let i = 0;
  outer: while (i < text.length) {
    if (text[i] === '<') {
      for (let t = 0; t < TAGS.length; t++) {
        if (text.startsWith(TAGS[t]!, i)) {
          out.push(2 + t);
          i += TAGS[t]!.length;
          continue outer;
        }
      }
    }
    const id = charIndex.get(text[i]!);
    if (id === undefined)
      throw new TokenizeError(
        `character ${JSON.stringify(text[i])} (code ${text.charCodeAt(i)}) at position ${i} is not in the vocabulary`,
      );
    out.push(id);
    i++;
  }
  return out;
}

/** Decodes token ids; stops at nothing, shows <eos> and <pad> only when asked. */
export function decode(ids: ArrayLike<number>, showSpecial = false): string {
  let s = '';
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    if (id < FIRST_CHAR) {
      if (id >= 2) s += SPECIALS[id];
      else if (showSpecial) s += SPECIALS[id];
    } else s += CHARS[id - FIRST_CHAR] ?? '?';
  }
  return s;
}

/** The visible text of one token, for the token-level inspector. */
export function tokenText(id: number): string {
  return id < FIRST_CHAR ? SPECIALS[id]! : (CHARS[id - FIRST_CHAR] ?? '?');
}
