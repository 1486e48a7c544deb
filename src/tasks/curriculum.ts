/**
 * Curricula and prompt selection:
 * - FixedDifficulty: one difficulty throughout.
 * - DifficultyLadder: SATURN-style controlled transitions. Pass@1 is pooled over the last `window`
 *   steps at the current level; once the window is full it moves up when the rate reaches
 *   `advanceAt` and down when it falls below `stepBackAt`, then starts a fresh window.
 * - filterGroups: balanced online filtering / DAPO dynamic sampling, keeping prompt groups whose
 *   accuracy is strictly between the bounds (a group all right or all wrong has zero reward
 *   variance and so no GRPO signal).
 * - hintFor: Guide/SEELE-style hints, a prefix of the reference completion that the trainer forces
 *   as the start of a retried rollout.
 */
import { DEFAULT_FORMAT, parseCompletion } from './format.ts';
import type { Difficulty, TaskInstance } from './types.ts';

export interface Curriculum {
  /** The difficulty to sample the next batch at. */
  current(): Difficulty;
  /** Reports one training step: `correct` of `total` rollouts were right. */
  record(step: number, correct: number, total: number): void;
}

export class FixedDifficulty implements Curriculum {
  constructor(readonly difficulty: Difficulty) {}
  current(): Difficulty {
    return this.difficulty;
  }
  record(): void {}
}

export interface LadderOptions {
  /** Steps pooled before a transition is considered. */
  window: number;
  /** Move up when pooled pass@1 >= this. */
  advanceAt: number;
  /** Move down when pooled pass@1 < this (set 0 to never step back). */
  stepBackAt: number;
  startLevel: number;
}

export const DEFAULT_LADDER_OPTIONS: LadderOptions = { window: 20, advanceAt: 0.8, stepBackAt: 0.2, startLevel: 0 };

export interface LadderTransition {
  step: number;
  from: number;
  to: number;
  passRate: number;
  direction: 'up' | 'down';
}

export interface LadderState {
  levels: Difficulty[];
  options: LadderOptions;
  level: number;
  /** [correct, total] per step in the current window. */
  window: [number, number][];
  history: LadderTransition[];
}

export class DifficultyLadder implements Curriculum {
  readonly levels: Difficulty[];
  readonly options: LadderOptions;
  private lvl: number;
  private win: [number, number][] = [];
  private readonly hist: LadderTransition[] = [];

  constructor(levels: Difficulty[], options: Partial<LadderOptions> = {}) {
    if (!Array.isArray(levels) || levels.length === 0) throw new Error('DifficultyLadder: needs at least one level');
    const o = { ...DEFAULT_LADDER_OPTIONS, ...options };
    if (!Number.isInteger(o.window) || o.window < 1)
      throw new Error('DifficultyLadder: window must be an integer >= 1');
    if (!(o.advanceAt >= 0 && o.advanceAt <= 1)) throw new Error('DifficultyLadder: advanceAt must be in [0, 1]');
    if (!(o.stepBackAt >= 0 && o.stepBackAt <= o.advanceAt))
      throw new Error('DifficultyLadder: stepBackAt must be in [0, advanceAt]');
    if (!Number.isInteger(o.startLevel) || o.startLevel < 0 || o.startLevel >= levels.length)
      throw new Error(`DifficultyLadder: startLevel must be 0..${levels.length - 1}`);
    this.levels = levels;
    this.options = o;
    this.lvl = o.startLevel;
  }

  get level(): number {
    return this.lvl;
  }

  get history(): readonly LadderTransition[] {
    return this.hist;
  }

  current(): Difficulty {
    return this.levels[this.lvl]!;
  }

  /** Pooled pass@1 over the current window, or null while it is empty. */
  passRate(): number | null {
    let c = 0;
    let t = 0;
    for (const [a, b] of this.win) {
      c += a;
      t += b;
    }
    return t > 0 ? c / t : null;
  }

  /** Returns the transition it made, if any. */
  record(step: number, correct: number, total: number): LadderTransition | null {
    if (!(total > 0) || !(correct >= 0) || correct > total) return null;
    this.win.push([correct, total]);
    if (this.win.length > this.options.window) this.win.shift();
    if (this.win.length < this.options.window) return null;
    const rate = this.passRate()!;
    let to = this.lvl;
    if (rate >= this.options.advanceAt && this.lvl < this.levels.length - 1) to = this.lvl + 1;
    else if (rate < this.options.stepBackAt && this.lvl > 0) to = this.lvl - 1;
    if (to === this.lvl) return null;
    const t: LadderTransition = { step, from: this.lvl, to, passRate: rate, direction: to > this.lvl ? 'up' : 'down' };
    this.hist.push(t);
    this.lvl = to;
    this.win = [];
    return t;
  }

  toJSON(): LadderState {
    return {
      levels: this.levels,
      options: this.options,
      level: this.lvl,
      window: this.win.map((w) => [w[0], w[1]]),
      history: this.hist.slice(),
    };
  }

  static fromJSON(state: LadderState): DifficultyLadder {
    const l = new DifficultyLadder(state.levels, state.options);
    if (!Number.isInteger(state.level) || state.level < 0 || state.level >= state.levels.length)
      throw new Error('DifficultyLadder: saved level out of range');
    l.lvl = state.level;
    l.win = state.window.map((w) => [w[0], w[1]]);
    l.hist.push(...state.history);
    return l;
  }
}

// ---- balanced online filtering -----------------------------------------------------------------

export interface FilterResult<G> {
  kept: G[];
  dropped: { group: G; accuracy: number; why: 'all-correct' | 'all-wrong' | 'outside-bounds' }[];
}

/** Accuracy of one group of rollouts (share of correct verdicts); 0 for an empty group. */
export function groupAccuracy(verdicts: readonly { correct: boolean }[]): number {
  return verdicts.length ? verdicts.filter((v) => v.correct).length / verdicts.length : 0;
}

/**
 * Keeps groups whose accuracy is strictly between `low` and `high` (default 0 and 1).
 * `accuracy` maps a group to its accuracy (e.g. g => groupAccuracy(g.verdicts)).
 */
export function filterGroups<G>(
  groups: readonly G[],
  accuracy: (g: G) => number,
  bounds: { low?: number; high?: number } = {},
): FilterResult<G> {
  const low = bounds.low ?? 0;
  const high = bounds.high ?? 1;
  const out: FilterResult<G> = { kept: [], dropped: [] };
  for (const g of groups) {
    const a = accuracy(g);
    if (a > low && a < high) out.kept.push(g);
    else
      out.dropped.push({
        group: g,
        accuracy: a,
        why: a >= 1 ? 'all-correct' : a <= 0 ? 'all-wrong' : 'outside-bounds',
      });
  }
  return out;
}

// ---- hints -------------------------------------------------------------------------------------

export interface Hint {
  /** Text to force as the start of the completion; always begins with "<think>". */
  prefix: string;
  hinted: true;
  /** The fraction of the thinking part revealed. */
  fraction: number;
}

/**
 * The first `fraction` of the reference's thinking part, starting with "<think>". At fraction 1
 * the whole thinking part including "</think>" is given, never the answer.
 */
export function hintFor(instance: TaskInstance, fraction: number): Hint {
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  const open = `<${DEFAULT_FORMAT.thinkTag}>`;
  const think = parseCompletion(instance.reference).think ?? '';
  if (f >= 1) return { prefix: `${open}${think}</${DEFAULT_FORMAT.thinkTag}>`, hinted: true, fraction: 1 };
  return { prefix: open + think.slice(0, Math.round(f * think.length)), hinted: true, fraction: f };
}

/** Scaf-GRPO-style tiers: the next larger hint after `previous` (undefined: the first tier). */
export function nextHintFraction(
  previous: number | undefined,
  tiers: readonly number[] = [0.25, 0.5, 0.75, 1],
): number | null {
  for (const t of tiers) if (previous === undefined || t > previous) return t;
  return null;
}
