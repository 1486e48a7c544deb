/**
 * One completion as a person inspects it: every per-token number the loss used, as the update graph
 * output them (src/rl/objective.ts), so nothing downstream recomputes the objective.
 */
export interface RolloutRecord {
  /** The update this completion fed (updates done after it: the first update is step 1). */
  step: number;
  group: number;
  index: number;
  prompt: string;
  /** Text forced at the start of the completion (hints), empty when none. */
  hint: string;
  tokens: number[];
  tokenText: string[];
  completion: string;
  oldLogp: number[];
  newLogp: number[];
  refLogp: number[] | null;
  ratio: number[];
  /** 'low' | 'high' where the clipped branch was taken, else null. */
  clipped: ('low' | 'high' | null)[];
  entropy: number[];
  kl: number[];
  advantage: number;
  /** Per-token surrogate obj = min(min(ratio, delta)·A, clip(ratio, 1 − epsilon, 1 + epsilon_high)·A). */
  objective: number[];
  /** Per-token loss before aggregation: −obj + beta·kl − entropy_coef·entropy. */
  tokenLoss: number[];
  /** Aggregation weight of each token (loss_type: how token losses are averaged); 0 off the loss. */
  weight: number[];
  /** Per-token contribution to the loss (weight × token loss); 0 on masked tokens. */
  lossContribution: number[];
  /** Whether each token counted in the loss (masking: truncation, top-entropy). */
  trained: boolean[];
  reward: number;
  components: Record<string, number>;
  correct: boolean;
  reason: string;
  truncated: boolean;
  hinted: boolean;
  /** Noisy verifier: 'fn' (correct judged wrong), 'fp' (wrong judged correct) or null. */
  flipped: 'fn' | 'fp' | null;
}

/** What is kept of an older step once its full records are dropped. */
export interface StepSummary {
  step: number;
  rollouts: number;
  meanReward: number;
  accuracy: number;
  examples: { prompt: string; completion: string; reward: number; correct: boolean }[];
}

/**
 * Bounded rollout history: the most recent `keep` steps in full, older ones summarised (a few
 * examples each), so memory stays flat on long runs.
 */
export class RolloutHistory {
  private full = new Map<number, RolloutRecord[]>();
  readonly summaries: StepSummary[] = [];

  constructor(
    private keep: number,
    private maxSummaries = 2000,
  ) {}

  add(step: number, records: RolloutRecord[]): void {
    this.full.set(step, records);
    while (this.full.size > this.keep) {
      const oldest = Math.min(...this.full.keys());
      const recs = this.full.get(oldest)!;
      this.full.delete(oldest);
      this.summaries.push({
        step: oldest,
        rollouts: recs.length,
        meanReward: recs.reduce((a, r) => a + r.reward, 0) / Math.max(1, recs.length),
        accuracy: recs.filter((r) => r.correct).length / Math.max(1, recs.length),
        examples: recs
          .slice(0, 3)
          .map((r) => ({ prompt: r.prompt, completion: r.completion, reward: r.reward, correct: r.correct })),
      });
      if (this.summaries.length > this.maxSummaries)
        this.summaries.splice(0, this.summaries.length - this.maxSummaries);
    }
  }

  steps(): number[] {
    return [...this.full.keys()].sort((a, b) => a - b);
  }

  get(step: number): RolloutRecord[] | undefined {
    return this.full.get(step);
  }

  setKeep(keep: number): void {
    this.keep = keep;
  }
}
