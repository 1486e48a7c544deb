/**
 * The first phase of a training step: sample groups of completions, verify them, shape their rewards,
 * and (with dynamic sampling) refill groups whose rewards carry no signal.
 */
import type { Policy } from '../model/policy.ts';
import { hintFor } from '../tasks/curriculum.ts';
import { applyNoise } from '../tasks/noisy.ts';
import { shapeReward } from '../tasks/reward.ts';
import type { TaskFamily, TaskInstance, Verdict } from '../tasks/types.ts';
import { Rng } from '../util/rng.ts';
import { samplingParams, type RunConfig } from './config.ts';
import { isZeroVariance, mean } from './metrics.ts';

/** One sampled, verified completion with its shaped reward. */
export interface Sampled {
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

/** What collecting a step's groups produced. */
export interface Collected {
  groups: Sampled[][];
  rounds: number;
  /** Groups of the first sampling round with zero reward variance (isZeroVariance). */
  zeroVarianceFirstRound: number;
  /**
   * Fraction of the first sampling round's completions the strict verifier judges correct: the
   * policy's batch accuracy before dynamic sampling drops and refills groups (which biases the trained
   * batch's accuracy toward groups that were neither all wrong nor all right).
   */
  accuracyFirstRound: number;
  hintedGroups: number;
  sampledTokens: number;
  /** Milliseconds spent verifying and sorting groups (the rest of the phase is sampling). */
  verifyMs: number;
}

/** What the collector needs from the trainer: the run's knobs, counters and policy. */
export interface CollectContext {
  policy: Policy;
  config: RunConfig;
  family: TaskFamily;
  /** Updates done (derives the random streams). */
  step: number;
  /** The next training prompt's instance seed: advanced for every prompt drawn. */
  nextInstance(difficulty: Record<string, number | string>): TaskInstance;
}

function verify(
  x: CollectContext,
  inst: TaskInstance,
  text: string,
  row: number,
): { verdict: Verdict; trueCorrect: boolean; flipped: 'fn' | 'fp' | null } {
  const c = x.config;
  const strict = x.family.verify(inst, text);
  const base = c.leaky_verifier && x.family.leakyVerify ? x.family.leakyVerify(inst, text) : strict;
  if (c.noise_p_fn === 0 && c.noise_p_fp === 0) return { verdict: base, trueCorrect: strict.correct, flipped: null };
  const u = Rng.derive(c.seed, 'noise', x.step, row).next();
  const noisy = applyNoise(base, { pFn: c.noise_p_fn, pFp: c.noise_p_fp }, u);
  return { verdict: noisy, trueCorrect: strict.correct, flipped: noisy.flipped };
}

/** Samples one batch of prompts_per_step groups (optionally hinted prompts). */
async function sampleGroups(
  x: CollectContext,
  instances: TaskInstance[],
  hints: string[],
  round: number,
): Promise<Sampled[][]> {
  const c = x.config;
  const G = c.num_generations;
  const codec = x.policy.codec;
  const prompts = instances.map((inst, i) => codec.encodePrompt(inst.prompt + hints[i]!));
  const rows = prompts.flatMap((p) => new Array<number[]>(G).fill(p));
  const comps = await x.policy.sample(
    rows,
    samplingParams(c),
    c.max_completion_length,
    Rng.derive(c.seed, 'sample', x.step, round),
  );
  return instances.map((inst, gi) =>
    Array.from({ length: G }, (_, j) => {
      const r = gi * G + j;
      const comp = comps[r]!;
      const body = codec.stopTokens.has(comp.tokens[comp.tokens.length - 1]!) ? comp.tokens.slice(0, -1) : comp.tokens;
      const text = hints[gi]! + codec.decode(body);
      const v = verify(x, inst, text, round * 100_000 + r);
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
async function probabilityRewards(x: CollectContext, groups: Sampled[][]): Promise<void> {
  const c = x.config;
  const flat = groups.flat();
  const codec = x.policy.codec;
  const prompts = flat.map((s) => s.prompt);
  const answers = flat.map((s) => {
    const thinkEnd = s.text.indexOf('</think>');
    const reasoning = thinkEnd >= 0 ? s.text.slice(0, thinkEnd + 8) : '<think></think>';
    const prefix = codec
      .encodeContinuation(reasoning.slice(s.hint.length))
      .slice(0, Math.max(0, c.max_completion_length - 4));
    const answer = codec.encodeContinuation(`<answer>${s.instance.answer}</answer>`);
    const seq = [...prefix, ...answer, codec.eos].slice(0, x.policy.layout.completionLen);
    return { seq, from: prefix.length + 1, to: Math.min(seq.length, prefix.length + answer.length - 1) };
  });
  const scores = await x.policy.score(
    prompts,
    answers.map((a) => a.seq),
    1,
  );
  flat.forEach((s, i) => {
    const a = answers[i]!;
    const lps = scores.logp[i]!.slice(a.from, a.to);
    const prob = lps.length ? mean(lps.map(Math.exp)) : 0;
    s.components.rlpr = prob;
    s.reward = c.reward_source === 'rlpr' ? prob : (1 - c.rlpr_weight) * s.reward + c.rlpr_weight * prob;
  });
}

/**
 * prompts_per_step groups for one step. Hints replace groups that got nothing right; with dynamic
 * sampling, zero-variance groups are dropped and refilled for up to max_refill_rounds more rounds.
 */
export async function collectGroups(
  x: CollectContext,
  difficulty: Record<string, number | string>,
): Promise<Collected> {
  const c = x.config;
  const P = c.prompts_per_step;
  const groups: Sampled[][] = [];
  const dropped: Sampled[][] = [];
  const out: Omit<Collected, 'groups'> = {
    rounds: 0,
    zeroVarianceFirstRound: 0,
    accuracyFirstRound: 0,
    hintedGroups: 0,
    sampledTokens: 0,
    verifyMs: 0,
  };
  const maxRounds = c.dynamic_sampling ? 1 + c.max_refill_rounds : 1;
  while (groups.length < P && out.rounds < maxRounds) {
    const instances = Array.from({ length: P }, () => x.nextInstance(difficulty));
    let batch = await sampleGroups(
      x,
      instances,
      instances.map(() => ''),
      out.rounds,
    );
    if (c.hints) {
      const failing = batch.map((g, i) => (g.every((s) => !s.verdict.correct) ? i : -1)).filter((i) => i >= 0);
      if (failing.length) {
        const hints = instances.map((inst, i) => (failing.includes(i) ? hintFor(inst, c.hint_fraction).prefix : ''));
        const hinted = await sampleGroups(x, instances, hints, out.rounds + 50);
        for (const i of failing) batch[i] = hinted[i]!;
        out.hintedGroups += failing.length;
        batch = [...batch];
      }
    }
    for (const g of batch) out.sampledTokens += g.reduce((a, s) => a + s.tokens.length, 0);
    if (c.reward_source !== 'verifier') await probabilityRewards(x, batch);
    const tv = performance.now();
    const zero = batch.map((g) => isZeroVariance(g.map((s) => s.reward)));
    if (out.rounds === 0) {
      out.zeroVarianceFirstRound = zero.filter(Boolean).length;
      const first = batch.flat();
      out.accuracyFirstRound = first.filter((s) => s.trueCorrect).length / Math.max(1, first.length);
    }
    batch.forEach((g, i) => (c.dynamic_sampling && zero[i] ? dropped : groups).push(g));
    out.verifyMs += performance.now() - tv;
    out.rounds++;
  }
  // Static shapes: if refills ran out, top up with dropped (zero-signal) groups.
  while (groups.length < P) groups.push(dropped.shift()!);
  groups.length = P;
  return { groups, ...out };
}
