/**
 * Per-token log-probabilities of whole lines under a checkpoint: what `rlvr score` prints and what the
 * page's Score a text (an imported model's card in Keep & share) shows, one code path for both.
 */
import type { Policy } from './policy.ts';

/** Lines scored per run of the scoring graph. */
const BATCH = 16;

export interface ScoredLine {
  /** The line's tokens in the model's own tokenizer (with the special tokens it adds). */
  ids: number[];
  /** Each token's log-probability given the tokens before it, at temperature 1; the first token gets null. */
  logprobs: (number | null)[];
}

/** Checks each line fits the model's context; `where(i)` names line i in the message. */
export function checkLineLengths(ids: number[][], contextLength: number, where: (i: number) => string): void {
  ids.forEach((row, i) => {
    if (row.length > contextLength)
      throw new Error(
        `${where(i)}: ${row.length} tokens, but the model reads at most ${contextLength} (its context length)`,
      );
  });
}

/**
 * Scores tokenized lines (each checked against the context length first) with `policy`, `BATCH` at a
 * time; `each` gets every line's result in order as soon as its batch is done. The policy's layout is
 * changed to fit the longest line.
 */
export async function scoreLines(
  policy: Policy,
  ids: number[][],
  each: (line: ScoredLine, index: number) => void,
): Promise<void> {
  const longest = ids.reduce((m, row) => Math.max(m, row.length), 2);
  // One prompt column (each line's first token) and the rest as the completion being scored.
  policy.setLayout({ promptLen: 1, completionLen: longest - 1 });
  for (let start = 0; start < ids.length; start += BATCH) {
    const batch = ids.slice(start, start + BATCH);
    const scored = batch.filter((row) => row.length > 1);
    const res = scored.length
      ? await policy.score(
          scored.map((r) => [r[0]!]),
          scored.map((r) => r.slice(1)),
        )
      : { logp: [] };
    let k = 0;
    batch.forEach((row, j) => {
      const rest = row.length > 1 ? res.logp[k++]! : [];
      each({ ids: row, logprobs: row.length ? [null, ...rest] : [] }, start + j);
    });
  }
}
