import { totalLen, type Layout } from '../model/layout.ts';
import type { Policy } from '../model/policy.ts';
import { DifficultyLadder, FixedDifficulty, type Curriculum, type LadderState } from '../tasks/curriculum.ts';
import { getTaskFamily } from '../tasks/registry.ts';
import type { TaskFamily } from '../tasks/types.ts';
import { computeAdvantages } from './advantages.ts';
import { collectGroups, type CollectContext, type Sampled } from './collect.ts';
import { ConfigError, heldOutSamples, type RunConfig } from './config.ts';
import { resolveLiveEdit } from './resolve-config.ts';
import { fittingLadder, promptTokensFor } from './context-fit.ts';
import { evaluatePassAtK, type EvalResult } from './evaluate.ts';
import { histogram, isZeroVariance } from './metrics.ts';
import { RolloutHistory, type RolloutRecord } from './rollout.ts';
import { rewardFunctions, type StepBatch, tokenMasks } from './step-batch.ts';
import { samplingParams } from './config.ts';
import type { EntropyControl } from './adaptive-entropy.ts';
import { updatePasses } from './update-passes.ts';
import { buildRecords, stepMetrics, type StepMetrics } from './step-records.ts';

export type { StepMetrics };

/** What Trainer.getState/restoreState carry (JSON-serialisable). */
export interface TrainerState {
  step: number;
  promptCounter: number;
  nonFiniteStreak?: number;
  ladder?: LadderState | null;
  /** use_adaptive_entropy's controller (adaptive-entropy.ts), once it has run. */
  entropyControl?: EntropyControl | null;
}

export interface StepResult {
  metrics: StepMetrics;
  advantageHistogram: { edges: number[]; counts: number[] };
  rollouts: RolloutRecord[];
  skipped: boolean;
  difficulty: Record<string, number | string>;
  /** Groups of the trained batch whose rewards were all equal (isZeroVariance). */
  zeroVarianceGroups: number;
}

/** Instance seeds for training prompts: far from the held-out evaluation seeds (0..P-1). */
export const trainSeed = (runSeed: number, n: number) => 10_000_000 + (runSeed % 1000) * 1_000_000 + n;

/**
 * One GRPO-family training step: sample groups → verify → shape rewards → advantages →
 * (μ epochs × minibatches) of one engine graph (score with the current policy, ratio, clipped
 * objective, KL, entropy, backward, AdamW). Presets differ only in the config values fed to it.
 */
export class Trainer {
  /** Updates done: the number of the last step (0 = the base policy, nothing trained yet). */
  step = 0;
  promptCounter = 0;
  nonFiniteStreak = 0;
  /** use_adaptive_entropy's controller; null until it first runs. */
  entropyControl: EntropyControl | null = null;
  readonly history: RolloutHistory;
  readonly evals: { step: number; result: EvalResult }[] = [];
  private curriculum: Curriculum;
  private family: TaskFamily;

  private constructor(
    readonly policy: Policy,
    public config: RunConfig,
  ) {
    this.family = getTaskFamily(config.task);
    this.history = new RolloutHistory(config.rollout_history_steps);
    if (config.curriculum === 'ladder') {
      const ladder = fittingLadder(config, this.family.levels, policy.config.contextLength, policy.codec);
      this.curriculum = new DifficultyLadder(ladder.levels, {
        window: config.ladder_window,
        advanceAt: config.ladder_advance_at,
        stepBackAt: config.ladder_step_back_at,
        startLevel: ladder.start,
      });
    } else this.curriculum = new FixedDifficulty({ ...this.family.defaultDifficulty, ...config.difficulty });
  }

  static async create(policy: Policy, config: RunConfig): Promise<Trainer> {
    const t = new Trainer(policy, config);
    policy.setLayout(t.layoutNeeded());
    if (config.beta > 0 || !policy.hasReference) await policy.resetReference();
    return t;
  }

  /** The grid every graph of this run uses: the task's longest prompt (plus hints) and the completion cap. */
  layoutNeeded(): Layout {
    const c = this.config;
    const levels =
      this.curriculum instanceof DifficultyLadder ? this.curriculum.toJSON().levels : [this.curriculum.current()];
    const promptLen = promptTokensFor(c.task, levels, c.hints, this.policy.codec);
    const layout = { promptLen, completionLen: c.max_completion_length };
    if (totalLen(layout) > this.policy.config.contextLength) {
      throw new Error(
        `task "${c.task}" needs ${promptLen} prompt tokens + max_completion_length ${c.max_completion_length} ` +
          `= ${totalLen(layout)} positions, but the model has ${this.policy.config.contextLength}; lower ` +
          'max_completion_length or the difficulty',
      );
    }
    return layout;
  }

  /**
   * Changes knobs between steps, the edit resolved by the one resolver (resolveLiveEdit): an invalid
   * value, or a field that needs a new run (needsRestart), is rejected with the reason; the returned
   * list names what changed.
   */
  updateConfig(patch: Partial<RunConfig>): string[] {
    const edit = resolveLiveEdit(this.config, patch as Record<string, unknown>);
    const error = edit.errors[0];
    if (error) throw new ConfigError(error.field, error.message);
    const blocked = edit.restart[0];
    if (blocked)
      throw new ConfigError(
        blocked,
        'cannot change while training (it changes the compiled graph shapes or the prompt stream); reset ' +
          'the run to change it',
      );
    const { config: next, changed } = edit;
    if (changed.includes('hints') && next.hints && !this.config.hints)
      throw new ConfigError('hints', 'turning hints on needs a longer prompt grid; reset the run to change it');
    if (changed.includes('difficulty')) {
      const difficulty = { ...this.family.defaultDifficulty, ...next.difficulty };
      // Harder prompts can outgrow the compiled grid: that takes a new run, not a silent failure next step.
      const need = promptTokensFor(next.task, [difficulty], next.hints, this.policy.codec);
      if (need > this.policy.layout.promptLen)
        throw new ConfigError(
          'difficulty',
          `these prompts need ${need} tokens, more than the ${this.policy.layout.promptLen} this run's ` +
            'graphs were built for; reset the run to change it',
        );
      this.curriculum = new FixedDifficulty(difficulty);
    }
    this.config = next;
    this.history.setKeep(next.rollout_history_steps);
    return changed;
  }

  learningRate(): number {
    const w = this.config.warmup_steps;
    return w > 0 ? (this.config.learning_rate * Math.min(w, this.step + 1)) / w : this.config.learning_rate;
  }

  get difficulty(): Record<string, number | string> {
    return this.curriculum.current();
  }

  ladderState(): LadderState | null {
    return this.curriculum instanceof DifficultyLadder ? this.curriculum.toJSON() : null;
  }

  /**
   * The trainer's own state beyond the policy's weights and AdamW moments: with those, the reference
   * weights and this, a restored trainer continues with exactly the metrics of an uninterrupted run
   * (every random stream is derived from (seed, step, round), every prompt from promptCounter).
   */
  getState(): TrainerState {
    return {
      step: this.step,
      promptCounter: this.promptCounter,
      nonFiniteStreak: this.nonFiniteStreak,
      ladder: this.ladderState(),
      entropyControl: this.entropyControl,
    };
  }

  /** Puts back what getState returned (validated first: a bad state changes nothing). */
  restoreState(s: TrainerState): void {
    const int = (v: unknown, what: string) => {
      if (!Number.isInteger(v) || (v as number) < 0)
        throw new Error(`trainer state: ${what} must be an integer >= 0, got ${JSON.stringify(v)}`);
      return v as number;
    };
    const step = int(s.step, 'step');
    const promptCounter = int(s.promptCounter, 'promptCounter');
    const streak = int(s.nonFiniteStreak ?? 0, 'nonFiniteStreak');
    let ladder: DifficultyLadder | null = null;
    if (s.ladder) {
      if (!(this.curriculum instanceof DifficultyLadder))
        throw new Error('trainer state: has a difficulty ladder but this run uses a fixed difficulty');
      ladder = DifficultyLadder.fromJSON(s.ladder);
    }
    this.step = step;
    this.promptCounter = promptCounter;
    this.nonFiniteStreak = streak;
    if (ladder) this.curriculum = ladder;
    this.entropyControl = s.entropyControl
      ? {
          coef: Number(s.entropyControl.coef),
          lastEntropy: s.entropyControl.lastEntropy === null ? null : Number(s.entropyControl.lastEntropy),
        }
      : null;
  }

  /**
   * One update, in five named phases: collect groups (sample, verify, shape, refill), token masks,
   * the update (μ epochs × minibatches of one graph), the rollout records, the metrics. The result is
   * numbered by updates done: the first update is step 1 (step 0 is the base policy).
   */
  async trainStep(): Promise<StepResult> {
    const c = this.config;
    const tStart = performance.now();
    const difficulty = this.curriculum.current();
    const collected = await collectGroups(this.collectContext(), difficulty);
    const tSampled = performance.now();
    const { groups } = collected;
    const rows = groups.flat();
    const masks = tokenMasks(rows, c, this.step);
    const G = c.num_generations;
    const tokens = groups.map((g, gi) => g.map((_, i) => masks.seqMask[gi * G + i]!.reduce((x, y) => x + y, 0)));
    const advantages = computeAdvantages(
      groups.map((g) => g.map((s) => s.reward)),
      groups.map((g) => g.map((s) => s.verdict.correct)),
      c,
      tokens,
      rewardFunctions(groups, c),
    );
    const batch: StepBatch = {
      updatesDone: this.step,
      rows,
      masks,
      advantages,
      refLogp: await this.referenceLogp(rows),
    };
    const tUpdateStart = performance.now();
    const learningRate = this.learningRate();
    const upd = await updatePasses(this.policy, this.config, batch, learningRate, this.entropyControl);
    this.entropyControl = upd.entropyControl;
    const tEnd = performance.now();
    const step = this.step + 1;
    const { records, tallies } = buildRecords(step, c, batch, upd, this.policy.codec);
    const metrics = stepMetrics(
      step,
      c,
      rows,
      tallies,
      { ...collected, ...upd, learningRate },
      { start: tStart, sampled: tSampled, verifyMs: collected.verifyMs, updateStart: tUpdateStart, end: tEnd },
    );
    this.nonFiniteStreak = upd.skipped ? this.nonFiniteStreak + 1 : 0;
    this.curriculum.record(this.step, rows.filter((s) => s.trueCorrect).length, rows.length);
    this.history.add(step, records);
    this.step = step;
    const zeroVarianceGroups = groups.filter((g) => isZeroVariance(g.map((s) => s.reward))).length;
    return {
      metrics,
      advantageHistogram: histogram(advantages.flat()),
      rollouts: records,
      skipped: upd.skipped,
      difficulty,
      zeroVarianceGroups,
    };
  }

  private collectContext(): CollectContext {
    return {
      policy: this.policy,
      config: this.config,
      family: this.family,
      step: this.step,
      nextInstance: (d) => this.family.generate(trainSeed(this.config.seed, this.promptCounter++), d),
    };
  }

  /** Log-probs of the reference policy (only when beta > 0), after a ProRL reset when one is due. */
  private async referenceLogp(flat: Sampled[]): Promise<number[][] | null> {
    const c = this.config;
    if (c.beta <= 0) return null;
    if (c.ref_reset_every > 0 && this.step > 0 && this.step % c.ref_reset_every === 0)
      await this.policy.resetReference();
    return (
      await this.policy.score(
        flat.map((s) => s.prompt),
        flat.map((s) => s.tokens),
        c.temperature,
        'reference',
      )
    ).logp;
  }

  /**
   * Held-out pass@k for k = 1..n (unbiased; n: heldOutSamples, eval_samples or else num_generations), on a fixed prompt
   * set at the current difficulty.
   */
  async evaluate(
    n = heldOutSamples(this.config),
    ks?: number[],
    onProgress?: (done: number, total: number) => void,
  ): Promise<EvalResult> {
    const c = this.config;
    const result = await evaluatePassAtK(this.policy, {
      task: c.task,
      difficulty: this.curriculum.current(),
      prompts: c.eval_prompts,
      n,
      ks: ks ?? Array.from({ length: n }, (_, i) => i + 1),
      seed: c.seed,
      sampling: samplingParams(c),
      maxNewTokens: c.max_completion_length,
      batchRows: c.prompts_per_step * c.num_generations,
      onProgress,
    });
    this.evals.push({ step: this.step, result });
    return result;
  }
}
