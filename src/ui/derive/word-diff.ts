/**
 * What changed in a completion of a prompt since an earlier one ("This prompt over training",
 * components/viewer/PromptOverTraining.tsx): a word-level diff by longest common subsequence, the earlier
 * completion it is made against, and the reward's change.
 *
 * Memory: the words both texts begin and end with are set aside first (a completion mostly like the last
 * one costs little); the rest is compared with a table of (n+1)·(m+1) small integers, at most MAX_CELLS of
 * them (8 MB). Past that, the middle is shown as removed and added whole, and the diff says it is not exact.
 */

export type DiffPart = { kind: 'same' | 'added' | 'removed'; text: string };
export interface WordDiff {
  parts: DiffPart[];
  /** False where the texts were too long to compare word by word (MAX_CELLS): the middle is shown whole. */
  exact: boolean;
}

/** Cells of the LCS table at most: 4 million 16-bit counts, 8 MB. */
export const MAX_CELLS = 4_000_000;

/** A text's words, each with the white space after it (the first piece may be white space alone). */
export function words(text: string): string[] {
  return text.match(/\s+|\S+\s*/gy) ?? [];
}

const same = (a: string, b: string) => a.trimEnd() === b.trimEnd();

function push(parts: DiffPart[], kind: DiffPart['kind'], text: string): void {
  if (text === '') return;
  const last = parts[parts.length - 1];
  // A word removed after one that ends the later text (no space after it) is set apart by a space, so the
  // two do not read as one word; the later text's own parts are never changed.
  if (kind === 'removed' && last && !/\s$/.test(last.text) && !/^\s/.test(text)) text = ` ${text}`;
  if (last?.kind === kind) last.text += text;
  else parts.push({ kind, text });
}

/** The diff from `before` to `after`, word by word; `same` parts hold `after`'s text. */
export function wordDiff(before: string, after: string, maxCells = MAX_CELLS): WordDiff {
  const a = words(before);
  const b = words(after);
  let start = 0;
  while (start < a.length && start < b.length && same(a[start]!, b[start]!)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && same(a[endA - 1]!, b[endB - 1]!)) {
    endA--;
    endB--;
  }
  const parts: DiffPart[] = [];
  push(parts, 'same', b.slice(0, start).join(''));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const n = midA.length;
  const m = midB.length;
  let exact = true;
  if ((n + 1) * (m + 1) > maxCells) {
    exact = false;
    push(parts, 'removed', midA.join(''));
    push(parts, 'added', midB.join(''));
  } else if (n > 0 || m > 0) {
    // lcs[i·(m+1)+j]: the longest common subsequence of midA[i..] and midB[j..] (at most 65,535 words).
    const width = m + 1;
    const lcs = Math.min(n, m) < 65_536 ? new Uint16Array((n + 1) * width) : new Uint32Array((n + 1) * width);
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lcs[i * width + j] = same(midA[i]!, midB[j]!)
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && same(midA[i]!, midB[j]!)) {
        push(parts, 'same', midB[j++]!);
        i++;
      } else if (j >= m || (i < n && lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) {
        push(parts, 'removed', midA[i++]!);
      } else push(parts, 'added', midB[j++]!);
    }
  }
  push(parts, 'same', b.slice(endB).join(''));
  return { parts, exact };
}

/** How many words two texts share (as multisets), over their mean count: 1 for the same words, 0 for none. */
export function wordOverlap(x: string, y: string): number {
  const count = new Map<string, number>();
  const wx = words(x).map((w) => w.trimEnd());
  const wy = words(y).map((w) => w.trimEnd());
  for (const w of wx) count.set(w, (count.get(w) ?? 0) + 1);
  let shared = 0;
  for (const w of wy) {
    const c = count.get(w) ?? 0;
    if (c > 0) {
      shared++;
      count.set(w, c - 1);
    }
  }
  const total = wx.length + wy.length;
  return total === 0 ? 1 : (2 * shared) / total;
}

/** A reward's change, signed, with a true minus sign: "+0.50", "−1.00", "±0.00"; "—" where either is not finite. */
export function rewardChange(before: number, after: number): string {
  const d = after - before;
  if (!Number.isFinite(d)) return '—';
  if (Math.abs(d) < 0.005) return '±0.00';
  return `${d > 0 ? '+' : '\u2212'}${Math.abs(d).toFixed(2)}`;
}

export interface Sample {
  step: number;
  row: number;
  completion: string;
  reward: number;
}

export interface Change<S extends Sample> {
  /** The completion compared against: in the nearest earlier step that sampled the prompt, the most alike. */
  earlier: S;
  diff: WordDiff;
  /** rewardChange(earlier.reward, reward). */
  reward: string;
}

/**
 * For each completion of one prompt (any order), what changed since the nearest earlier one: among the
 * completions of the nearest earlier step that has any, the one sharing the most words (ties: the first
 * in the row order). Completions of the first step have none. Keyed by `step:row`.
 */
export function changesOverTraining<S extends Sample>(samples: S[]): Map<string, Change<S>> {
  const byStep = new Map<number, S[]>();
  for (const s of samples) (byStep.get(s.step) ?? byStep.set(s.step, []).get(s.step)!).push(s);
  const steps = [...byStep.keys()].sort((a, b) => a - b);
  const out = new Map<string, Change<S>>();
  for (let k = 1; k < steps.length; k++) {
    const earlier = [...byStep.get(steps[k - 1]!)!].sort((a, b) => a.row - b.row);
    for (const s of byStep.get(steps[k]!)!) {
      let best = earlier[0]!;
      let bestOverlap = -1;
      for (const e of earlier) {
        const o = wordOverlap(e.completion, s.completion);
        if (o > bestOverlap) {
          best = e;
          bestOverlap = o;
        }
      }
      out.set(`${s.step}:${s.row}`, {
        earlier: best,
        diff: wordDiff(best.completion, s.completion),
        reward: rewardChange(best.reward, s.reward),
      });
    }
  }
  return out;
}
