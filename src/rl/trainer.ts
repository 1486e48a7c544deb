import type { DeviceTensor } from '../engine/backend.ts';
import { totalLen, predictingColumn, pack, type Layout } from '../model/layout.ts';
import type { Policy } from '../model/policy.ts';
import { decode, encode, EOS, tokenText } from '../model/tokenizer.ts';
import { applyNoise } from '../tasks/noisy.ts';
import { DifficultyLadder, FixedDifficulty, hintFor, type Curriculum, type LadderState } from '../tasks/curriculum.ts';
import { shapeReward } from '../tasks/reward.ts';
import { getTaskFamily } from '../tasks/registry.ts';
import type { TaskFamily, TaskInstance, Verdict } from '../tasks/types.ts';
import { Rng } from '../util/rng.ts';
import { aggregationWeights, computeAdvantages } from './advantages.ts';
import { ConfigError, configFields, restartFields, validateConfig, type RunConfig } from './config.ts';
import { fittingLevels, noLevelFits, promptTokensFor } from './context-fit.ts';
import { evaluatePassAtK, type EvalResult } from './evaluate.ts';
import { histogram, mean, std } from './metrics.ts';
import { buildRlGraph } from './objective.ts';
import { RolloutHistory, type RolloutRecord } from './rollout.ts';

export type StepMetrics = Record<string, number> & { step: number };

/** What Trainer.getState/restoreState carry (JSON-serialisable). */
export interface TrainerState {
  step: number;
  promptCounter: number;
  nonFiniteStreak?: number;
  ladder?: LadderState | null;
}

export interface StepResult {
  metrics: StepMetrics;
  advantageHistogram: { edges: number[]; counts: number[] };
  rollouts: RolloutRecord[];
  skipped: boolean;
  difficulty: Record<string, number | string>;
}

interface Sampled {
  instance: TaskInstance;
  prompt: number[];
  hint: string;
  tokens: number[];
  oldLogp: number[];
  entropy: number[];
  truncated: boolean;
  text: string;
  verdict: Verdict;
  trueCorrect: boolean;
  flipped: 'fn' | 'fp' | null;
  reward: number;
  components: Record<string, number>;
}

const HUGE = 1e30;

/** Instance seeds for training prompts: far from the held-out evaluation seeds (0..P-1). */
export const trainSeed = (runSeed: number, n: number) => 10_000_000 + (runSeed % 1000) * 1_000_000 + n;

/**
 * One GRPO-family training step: sample groups → verify → shape rewards → advantages →
 * (μ epochs × minibatches) of one engine graph (score with the current policy, ratio, clipped
 * objective, KL, entropy, backward, AdamW). Presets differ only in the config values fed to it.
 */
export class Trainer {
  step = 0;
  promptCounter = 0;
  nonFiniteStreak = 0;
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
    this.curriculum =
      config.curriculum === 'ladder'
        ? new DifficultyLadder(this.fittingLevels(), { window: config.ladder_window, advanceAt: config.ladder_advance_at, stepBackAt: config.ladder_step_back_at, startLevel: 0 })
        : new FixedDifficulty({ ...this.family.defaultDifficulty, ...config.difficulty });
  }

  /** Prompt tokens a set of difficulties needs (plus room for a hint when hints are on). */
  private promptTokens(levels: Record<string, number | string>[]): number {
    return promptTokensFor(this.config.task, levels, this.config.hints);
  }

  /** The family's ladder, cut where a level's prompts no longer fit the model's context. */
  private fittingLevels(): Record<string, number | string>[] {
    const fit = fittingLevels(this.config, this.family.levels, this.policy.config.contextLength);
    if (!fit.length) throw new Error(noLevelFits(this.config, this.policy.config.contextLength));
    return fit;
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
    const levels = this.curriculum instanceof DifficultyLadder ? this.curriculum.toJSON().levels : [this.curriculum.current()];
    const promptLen = this.promptTokens(levels);
    const layout = { promptLen, completionLen: c.max_completion_length };
    if (totalLen(layout) > this.policy.config.contextLength) {
      throw new Error(`task "${c.task}" needs ${promptLen} prompt tokens + max_completion_length ${c.max_completion_length} = ${totalLen(layout)} positions, but the model has ${this.policy.config.contextLength}; lower max_completion_length or the difficulty`);
    }
    return layout;
  }

  /**
   * Changes knobs between steps. Fields that change graph shapes or the data stream (restartFields)
   * are rejected with the reason; the returned list names what changed.
   */
  updateConfig(patch: Partial<RunConfig>): string[] {
    const next = validateConfig({ ...this.config, ...patch });
    const changed = configFields.filter((k) => JSON.stringify(next[k]) !== JSON.stringify(this.config[k]));
    const blocked = changed.filter((k) => restartFields.includes(k) || (k === 'difficulty' && this.config.curriculum === 'ladder'));
    if (blocked.length) throw new ConfigError(blocked[0]!, `cannot change while training (it changes the compiled graph shapes or the prompt stream); reset the run to change it`);
    if (changed.includes('hints') && next.hints && !this.config.hints) throw new ConfigError('hints', 'turning hints on needs a longer prompt grid; reset the run to change it');
    if (changed.includes('difficulty')) {
      const difficulty = { ...this.family.defaultDifficulty, ...next.difficulty };
      // Harder prompts can outgrow the compiled grid: that takes a new run, not a silent failure next step.
      const need = promptTokensFor(next.task, [difficulty], next.hints);
      if (need > this.policy.layout.promptLen) throw new ConfigError('difficulty', `these prompts need ${need} tokens, more than the ${this.policy.layout.promptLen} this run's graphs were built for; reset the run to change it`);
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
    return { step: this.step, promptCounter: this.promptCounter, nonFiniteStreak: this.nonFiniteStreak, ladder: this.ladderState() };
  }

  /** Puts back what getState returned (validated first: a bad state changes nothing). */
  restoreState(s: TrainerState): void {
    const int = (v: unknown, what: string) => {
      if (!Number.isInteger(v) || (v as number) < 0) throw new Error(`trainer state: ${what} must be an integer >= 0, got ${JSON.stringify(v)}`);
      return v as number;
    };
    const step = int(s.step, 'step');
    const promptCounter = int(s.promptCounter, 'promptCounter');
    const streak = int(s.nonFiniteStreak ?? 0, 'nonFiniteStreak');
    let ladder: DifficultyLadder | null = null;
    if (s.ladder) {
      if (!(this.curriculum instanceof DifficultyLadder)) throw new Error('trainer state: has a difficulty ladder but this run uses a fixed difficulty');
      ladder = DifficultyLadder.fromJSON(s.ladder);
    }
    this.step = step;
    this.promptCounter = promptCounter;
    this.nonFiniteStreak = streak;
    if (ladder) this.curriculum = ladder;
  }

  private verify(inst: TaskInstance, text: string, row: number): { verdict: Verdict; trueCorrect: boolean; flipped: 'fn' | 'fp' | null } {
    const c = this.config;
    const strict = this.family.verify(inst, text);
    const base = c.leaky_verifier && this.family.leakyVerify ? this.family.leakyVerify(inst, text) : strict;
    if (c.noise_p_fn === 0 && c.noise_p_fp === 0) return { verdict: base, trueCorrect: strict.correct, flipped: null };
    const u = Rng.derive(c.seed, 'noise', this.step, row).next();
    const noisy = applyNoise(base, { pFn: c.noise_p_fn, pFp: c.noise_p_fp }, u);
    return { verdict: noisy, trueCorrect: strict.correct, flipped: noisy.flipped };
  }

  /** Samples one batch of prompts_per_step groups (optionally hinted prompts). */
  private async sampleGroups(instances: TaskInstance[], hints: string[], round: number): Promise<Sampled[][]> {
    const c = this.config;
    const G = c.num_generations;
    const prompts = instances.map((inst, i) => encode(inst.prompt + hints[i]!));
    const rows = prompts.flatMap((p) => new Array<number[]>(G).fill(p));
    const comps = await this.policy.sample(rows, { temperature: c.temperature, topK: c.top_k, topP: c.top_p }, c.max_completion_length, Rng.derive(c.seed, 'sample', this.step, round));
    return instances.map((inst, gi) =>
      Array.from({ length: G }, (_, j) => {
        const r = gi * G + j;
        const comp = comps[r]!;
        const body = comp.tokens[comp.tokens.length - 1] === EOS ? comp.tokens.slice(0, -1) : comp.tokens;
        const text = hints[gi]! + decode(body);
        const v = this.verify(inst, text, round * 100_000 + r);
        const shaped = shapeReward(v.verdict, {
          weights: c.reward_weights,
          overlong: { enabled: c.overlong_penalty, cacheLength: c.overlong_cache_length, penalty: 1 },
          completionLength: comp.tokens.length,
          maxLength: c.max_completion_length,
        });
        return {
          instance: inst,
          prompt: prompts[gi]!,
          hint: hints[gi]!,
          tokens: comp.tokens,
          oldLogp: comp.logp,
          entropy: comp.entropy,
          truncated: comp.truncated,
          text,
          verdict: v.verdict,
          trueCorrect: v.trueCorrect,
          flipped: v.flipped,
          reward: shaped.total,
          components: { ...shaped.components },
        };
      }),
    );
  }

  /** RLPR: the policy's own mean per-token probability of the reference answer after its reasoning. */
  private async probabilityRewards(groups: Sampled[][]): Promise<void> {
    const c = this.config;
    const flat = groups.flat();
    const prompts = flat.map((s) => s.prompt);
    const answers = flat.map((s) => {
      const thinkEnd = s.text.indexOf('</think>');
      const reasoning = thinkEnd >= 0 ? s.text.slice(0, thinkEnd + 8) : '<think></think>';
      const prefix = encode(reasoning.slice(s.hint.length)).slice(0, Math.max(0, c.max_completion_length - 4));
      const answer = encode(`<answer>${s.instance.answer}</answer>`);
      const seq = [...prefix, ...answer, EOS].slice(0, this.policy.layout.completionLen);
      return { seq, from: prefix.length + 1, to: Math.min(seq.length, prefix.length + answer.length - 1) };
    });
    const scores = await this.policy.score(prompts, answers.map((a) => a.seq), 1);
    flat.forEach((s, i) => {
      const a = answers[i]!;
      const lps = scores.logp[i]!.slice(a.from, a.to);
      const prob = lps.length ? mean(lps.map(Math.exp)) : 0;
      s.components.rlpr = prob;
      s.reward = c.reward_source === 'rlpr' ? prob : (1 - c.rlpr_weight) * s.reward + c.rlpr_weight * prob;
    });
  }

  async trainStep(): Promise<StepResult> {
    const c = this.config;
    const P = c.prompts_per_step;
    const G = c.num_generations;
    const tStart = performance.now();
    const difficulty = this.curriculum.current();
    const groups: Sampled[][] = [];
    const dropped: Sampled[][] = [];
    let rounds = 0;
    let zeroStdFirstRound = 0;
    let hintedGroups = 0;
    let sampledTokens = 0;
    const maxRounds = c.dynamic_sampling ? 1 + c.max_refill_rounds : 1;
    let tVerify = 0;
    while (groups.length < P && rounds < maxRounds) {
      const instances = Array.from({ length: P }, () => this.family.generate(trainSeed(c.seed, this.promptCounter++), difficulty));
      let batch = await this.sampleGroups(instances, instances.map(() => ''), rounds);
      if (c.hints) {
        const failing = batch.map((g, i) => (g.every((s) => !s.verdict.correct) ? i : -1)).filter((i) => i >= 0);
        if (failing.length) {
          const hints = instances.map((inst, i) => (failing.includes(i) ? hintFor(inst, c.hint_fraction).prefix : ''));
          const hinted = await this.sampleGroups(instances, hints, rounds + 50);
          for (const i of failing) batch[i] = hinted[i]!;
          hintedGroups += failing.length;
          batch = [...batch];
        }
      }
      for (const g of batch) sampledTokens += g.reduce((a, s) => a + s.tokens.length, 0);
      if (c.reward_source !== 'verifier') await this.probabilityRewards(batch);
      const tv = performance.now();
      const zeroStd = batch.map((g) => std(g.map((s) => s.reward)) < 1e-9);
      if (rounds === 0) zeroStdFirstRound = zeroStd.filter(Boolean).length;
      batch.forEach((g, i) => (c.dynamic_sampling && zeroStd[i] ? dropped : groups).push(g));
      tVerify += performance.now() - tv;
      rounds++;
    }
    // Static shapes: if refills ran out, top up with dropped (zero-signal) groups.
    while (groups.length < P) groups.push(dropped.shift()!);
    groups.length = P;
    const tSampled = performance.now();

    const flat = groups.flat();
    const rewards = groups.map((g) => g.map((s) => s.reward));
    const advantages = computeAdvantages(rewards, groups.map((g) => g.map((s) => s.verdict.correct)), c);
    const rows = P * G;
    const layout = this.policy.layout;
    const len = totalLen(layout);

    // Token masks over the completion area: truncated completions and low-entropy tokens can be excluded.
    const seqMask: number[][] = flat.map((s) => s.tokens.map(() => (c.mask_truncated_completions && s.truncated ? 0 : 1)));
    let trainMask = seqMask;
    if (c.top_entropy_quantile < 1) {
      const ents = flat.flatMap((s, r) => s.entropy.filter((_, i) => seqMask[r]![i])).sort((a, b) => a - b);
      const threshold = ents[Math.floor((1 - c.top_entropy_quantile) * (ents.length - 1))] ?? 0;
      trainMask = flat.map((s, r) => s.entropy.map((h, i) => (seqMask[r]![i] && h >= threshold ? 1 : 0)));
    }
    const batchTokens = trainMask.reduce((a, m) => a + m.reduce((x, y) => x + y, 0), 0);

    let refLogp: number[][] | null = null;
    if (c.beta > 0) {
      if (c.ref_reset_every > 0 && this.step > 0 && this.step % c.ref_reset_every === 0) await this.policy.resetReference();
      refLogp = (await this.policy.score(flat.map((s) => s.prompt), flat.map((s) => s.tokens), c.temperature, 'reference')).logp;
    }

    const M = c.minibatches;
    const mbRows = rows / M;
    const grid = (fill: (r: number, i: number) => number, r0: number) => {
      const a = new Float32Array(mbRows * len);
      for (let r = 0; r < mbRows; r++) {
        const s = flat[r0 + r]!;
        for (let i = 0; i < s.tokens.length && i < layout.completionLen; i++) a[r * len + predictingColumn(layout, i)] = fill(r0 + r, i);
      }
      return a;
    };
    const lastPass: Record<string, Float32Array>[] = new Array(M);
    const losses: number[] = [];
    const gradNorms: number[] = [];
    let skipped = false;
    const tUpdateStart = performance.now();
    for (let it = 0; it < c.num_iterations; it++) {
      for (let mb = 0; mb < M; mb++) {
        const r0 = mb * mbRows;
        const rowsHere = flat.slice(r0, r0 + mbRows);
        const packed = pack(layout, rowsHere.map((s) => s.prompt), rowsHere.map((s) => s.tokens));
        const weights = aggregationWeights(trainMask.slice(r0, r0 + mbRows), c.loss_type, c.max_completion_length, batchTokens);
        const be = this.policy.backend;
        const f32 = (a: Float32Array): DeviceTensor => be.tensor('float32', a, [mbRows, len]);
        const feeds: Record<string, DeviceTensor> = {
          ...this.policy.packedFeeds(packed, 1 / c.temperature),
          old_logp: f32(grid((r, i) => flat[r]!.oldLogp[i]!, r0)),
          ref_logp: f32(grid((r, i) => (refLogp ? refLogp[r]![i]! : flat[r]!.oldLogp[i]!), r0)),
          advantages: f32(grid((r) => advantages[Math.floor(r / G)]![r % G]!, r0)),
          weights: f32(grid((r, i) => weights[r - r0]![i]!, r0)),
          mask: f32(grid((r, i) => seqMask[r]![i]!, r0)),
          seq_len: be.tensor('float32', rowsHere.map((_, k) => Math.max(1, seqMask[r0 + k]!.reduce((a, b) => a + b, 0))), [mbRows, 1]),
          clip_low: be.tensor('float32', [1 - c.epsilon], []),
          clip_high: be.tensor('float32', [1 + c.epsilon_high], []),
          delta: be.tensor('float32', [c.delta ?? HUGE], []),
          beta: be.tensor('float32', [c.beta], []),
          entropy_coef: be.tensor('float32', [c.entropy_coef], []),
          sequence_level: be.tensor('bool', [c.importance_sampling_level === 'sequence' ? 1 : 0], []),
          use_k3: be.tensor('bool', [c.kl_estimator === 'k3' ? 1 : 0], []),
        };
        const adam = { beta1: c.adam_beta1, beta2: c.adam_beta2, eps: 1e-8, weightDecay: c.weight_decay, maxGradNorm: c.max_grad_norm };
        const key = `rl:${mbRows}x${len}:${c.adam_beta1}:${c.adam_beta2}:${c.weight_decay}:${c.max_grad_norm}`;
        const res = await this.policy.train(key, () => buildRlGraph(this.policy.config, mbRows, len, adam), feeds, this.learningRate());
        if (!res.applied) skipped = true;
        losses.push(res.loss);
        gradNorms.push(res.gradNorm);
        lastPass[mb] = res.values;
      }
    }
    const tEnd = performance.now();

    // Per-token views of the last pass, for metrics and the rollout inspector.
    const at = (name: string, r: number, i: number) => lastPass[Math.floor(r / mbRows)]![name]![(r % mbRows) * len + predictingColumn(layout, i)]!;
    const ratios: number[] = [];
    let clipLow = 0;
    let clipHigh = 0;
    const ents: number[] = [];
    const kls: number[] = [];
    const records: RolloutRecord[] = flat.map((s, r) => {
      const A = advantages[Math.floor(r / G)]![r % G]!;
      const n = Math.min(s.tokens.length, layout.completionLen);
      const rec: RolloutRecord = {
        step: this.step,
        group: Math.floor(r / G),
        index: r % G,
        prompt: s.instance.prompt,
        hint: s.hint,
        tokens: s.tokens,
        tokenText: s.tokens.map(tokenText),
        completion: decode(s.tokens),
        oldLogp: s.oldLogp,
        newLogp: [],
        refLogp: refLogp ? refLogp[r]!.slice(0, n) : null,
        ratio: [],
        clipped: [],
        entropy: [],
        kl: [],
        advantage: A,
        lossContribution: [],
        trained: [],
        reward: s.reward,
        components: s.components,
        correct: s.trueCorrect,
        reason: s.verdict.reason,
        truncated: s.truncated,
        hinted: s.hint !== '',
        flipped: s.flipped,
      };
      for (let i = 0; i < n; i++) {
        const ratio = at('ratio', r, i);
        const lo = ratio < 1 - c.epsilon && A < 0;
        const hi = ratio > 1 + c.epsilon_high && A > 0;
        const trained = trainMask[r]![i]! > 0;
        rec.newLogp.push(at('logp', r, i));
        rec.ratio.push(ratio);
        rec.clipped.push(lo ? 'low' : hi ? 'high' : null);
        rec.entropy.push(at('entropy', r, i));
        rec.kl.push(at('kl', r, i));
        rec.lossContribution.push(at('token_loss', r, i));
        rec.trained.push(trained);
        if (trained) {
          ratios.push(ratio);
          if (lo) clipLow++;
          if (hi) clipHigh++;
        }
        if (seqMask[r]![i]) {
          ents.push(at('entropy', r, i));
          kls.push(at('kl', r, i));
        }
      }
      return rec;
    });

    const lengths = flat.map((s) => s.tokens.length);
    const allRewards = flat.map((s) => s.reward);
    const accuracy = mean(flat.map((s) => (s.trueCorrect ? 1 : 0)));
    const sumR = ratios.reduce((a, b) => a + b, 0);
    const sumR2 = ratios.reduce((a, b) => a + b * b, 0);
    const metrics: StepMetrics = {
      step: this.step,
      reward: mean(allRewards),
      reward_std: std(allRewards),
      accuracy,
      'accuracy/observed': mean(flat.map((s) => (s.verdict.correct ? 1 : 0))),
      frac_reward_zero_std: zeroStdFirstRound / P,
      'completions/mean_length': mean(lengths),
      'completions/max_length': Math.max(...lengths),
      'completions/min_length': Math.min(...lengths),
      'completions/clipped_ratio': mean(flat.map((s) => (s.truncated ? 1 : 0))),
      'completions/mean_length_wrong': mean(flat.filter((s) => !s.trueCorrect).map((s) => s.tokens.length)),
      entropy: mean(ents),
      kl: mean(kls),
      'ratio/mean': ratios.length ? sumR / ratios.length : 1,
      'ratio/min': ratios.length ? Math.min(...ratios) : 1,
      'ratio/max': ratios.length ? Math.max(...ratios) : 1,
      'clip_ratio/low_mean': ratios.length ? clipLow / ratios.length : 0,
      'clip_ratio/high_mean': ratios.length ? clipHigh / ratios.length : 0,
      'clip_ratio/region_mean': ratios.length ? (clipLow + clipHigh) / ratios.length : 0,
      ess: sumR2 > 0 ? (sumR * sumR) / sumR2 / ratios.length : 1,
      grad_norm: mean(gradNorms),
      loss: mean(losses),
      learning_rate: this.learningRate(),
      skipped: skipped ? 1 : 0,
      hinted_groups: hintedGroups,
      noise_flips: flat.filter((s) => s.flipped).length,
      sampling_rounds: rounds,
      'time/sampling': (tSampled - tStart - tVerify) / 1000,
      'time/verify': tVerify / 1000,
      'time/update': (tEnd - tUpdateStart) / 1000,
      'time/step': (tEnd - tStart) / 1000,
      'tokens_per_second/sampling': sampledTokens / Math.max(1e-9, (tSampled - tStart - tVerify) / 1000),
      'tokens_per_second/update': (lengths.reduce((a, b) => a + b, 0) * c.num_iterations) / Math.max(1e-9, (tEnd - tUpdateStart) / 1000),
    };
    for (const k of Object.keys(flat[0]!.components)) {
      const xs = flat.map((s) => s.components[k] ?? 0);
      metrics[`rewards/${k}/mean`] = mean(xs);
      metrics[`rewards/${k}/std`] = std(xs);
    }
    this.nonFiniteStreak = skipped ? this.nonFiniteStreak + 1 : 0;
    this.curriculum.record(this.step, flat.filter((s) => s.trueCorrect).length, flat.length);
    this.history.add(this.step, records);
    const result: StepResult = { metrics, advantageHistogram: histogram(advantages.flat()), rollouts: records, skipped, difficulty };
    this.step++;
    return result;
  }

  /** Held-out pass@k for k = 1..num_generations (unbiased), on a fixed prompt set at the current difficulty. */
  async evaluate(n = this.config.num_generations, ks?: number[], onProgress?: (done: number, total: number) => void): Promise<EvalResult> {
    const c = this.config;
    const result = await evaluatePassAtK(this.policy, {
      task: c.task,
      difficulty: this.curriculum.current(),
      prompts: c.eval_prompts,
      n,
      ks: ks ?? Array.from({ length: n }, (_, i) => i + 1),
      seed: c.seed,
      sampling: { temperature: c.temperature, topK: c.top_k, topP: c.top_p },
      maxNewTokens: c.max_completion_length,
      batchRows: c.prompts_per_step * c.num_generations,
      onProgress,
    });
    this.evals.push({ step: this.step, result });
    return result;
  }
}
