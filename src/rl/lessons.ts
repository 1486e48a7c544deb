import type { RunConfig } from './config.ts';
import type { ConfigInputs } from './resolve-config.ts';
import type { MetricKey } from './metrics.ts';

/**
 * Guided experiments: a lesson is a ready experiment (one or more configs run on the same seed), a
 * short text with what the paper reported, what to look at, and how its outcome is measured. The
 * measured outcome comes from `rlvr lesson run ID` (public/lessons/measured.json); a lesson never
 * claims an effect that run did not show.
 */
export interface LessonRun {
  label: string;
  preset: string;
  config: Partial<RunConfig>;
}

/** One lesson run's config inputs for the resolver: its preset, then the run's config on the lesson's task, then `extra` (seed, evaluation) over it. */
export function lessonRunInputs(lesson: Lesson, run: LessonRun, extra: Partial<RunConfig>): ConfigInputs {
  return { preset: run.preset, layers: [{ source: { kind: 'lesson', lesson: lesson.id }, values: { ...run.config, task: lesson.task, ...extra } }] };
}

export interface LessonMeasure {
  /** What the summary number is, per run. */
  description: string;
  /** Metric averaged over the last `window` steps of each run (a key of the metric table, src/rl/metrics.ts), or 'eval' for final held-out pass@k. */
  metric: MetricKey | 'eval';
  window: number;
  /**
   * Average the magnitude |x| instead of x, recorded under the key `|metric|` (measureKey). For a
   * quantity whose sign flips from step to step, like the loss, whose plain mean would hide its size.
   */
  abs?: boolean;
}

/** A measured number as the lesson's table and summary print it: magnitudes below 0.001 in exponent form, so a loss of 1e-8 does not read as 0.000. */
export function formatMeasured(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '—';
  if (x !== 0 && Math.abs(x) < 1e-3) return x.toExponential(1);
  return Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(3);
}

/** The key a measure's value is recorded under in MeasuredRun.values. */
export const measureKey = (m: LessonMeasure): string => (m.abs ? `|${m.metric}|` : m.metric);

export interface Lesson {
  id: string;
  title: string;
  paper: string;
  /** What the paper reported, quoted from its abstract. */
  claim: string;
  text: string;
  /** Charts to look at: metric keys, 'eval' (held-out pass@k) or 'difficulty'. */
  lookAt: (MetricKey | 'eval' | 'difficulty')[];
  task: string;
  steps: number;
  runs: LessonRun[];
  measures: LessonMeasure[];
  /**
   * The seeds the verdict is measured on (its rule judges their mean); 1, 2 and 3 unless set. Fixed
   * here, with the rule, before the measurement: scripts/record-lessons.sh measures these.
   */
  seeds?: readonly number[];
  /**
   * Whether the measured numbers show the paper's effect, decided by a fixed rule on them (so the
   * lesson's verdict can never drift from its numbers), with one sentence saying why.
   */
  verdict: (m: MeasuredLesson) => Verdict;
}

export interface Verdict {
  shows: boolean;
  text: string;
}

/** The seeds a lesson is measured on (Lesson.seeds). */
export const lessonSeeds = (l: Lesson): readonly number[] => l.seeds ?? [1, 2, 3];

const v = (m: MeasuredLesson, run: number, metric: string): number => m.runs[run]?.values[metric] ?? NaN;
const pk = (p: Record<string, number> | undefined, k: number): number => p?.[String(k)] ?? NaN;

/** Held-out prompts of a lesson's pass@k evaluation (rlvr lesson run). */
export const LESSON_EVAL_PROMPTS = 32;
/** One standard error of a pass@k estimate near p over the lesson's held-out prompts: the noise a "no worse" rule allows. */
const passKNoise = (p: number) => Math.sqrt(Math.max(p * (1 - p), 0) / LESSON_EVAL_PROMPTS);
const f3 = (x: number) => x.toFixed(3);
/** The largest amount by which `run`'s pass@k falls below the base's over the base's k (0 when it never does), and that k. */
function largestShortfall(base: Record<string, number> | undefined, run: Record<string, number> | undefined): { gap: number; k: number } {
  let best = { gap: 0, k: 0 };
  for (const k of Object.keys(base ?? {})) {
    const gap = (base?.[k] ?? 0) - (run?.[k] ?? 0);
    if (gap > best.gap) best = { gap, k: Number(k) };
  }
  return best;
}
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

const sat = 'sat';
/** Two clauses beyond the default SAT level: the base's pass@1 is about 0.03 (pass@8 about 0.2). */
const hardSat = { n: 5, k: 3, m: 8, ratio: 0 };
/** (1 − 2p)^−2: how many more samples per step symmetric verdict noise p costs for the same signal-to-noise ratio. */
const noiseCompensation = (p: number) => 1 / (1 - 2 * p) ** 2;
/** 4×4 sudoku with 10 blanks, the hardest 4×4 level: the base solves none (held-out pass@16 0). */
const hardSudoku = { size: 4, blanks: 10 };
/** Five clauses: the hardest level sat-tiny's SFT saw (base pass@1 0.54, pass@16 1.0), where RL can only sharpen. */
const trainedSat = { n: 5, k: 3, m: 5, ratio: 0 };

export const lessons: Lesson[] = [
  {
    id: 'why-groups',
    title: 'Why groups? Zero-variance groups and dynamic sampling',
    paper: 'DeepSeekMath (GRPO); DAPO (dynamic sampling); ReST-RL',
    claim: 'GRPO "faces failure due to insignificant reward variance" (ReST-RL); DAPO drops groups whose rewards are all equal and refills the batch.',
    text: 'GRPO scores each completion against the other completions of the same prompt. When all of them get the same reward, every advantage is zero and that prompt teaches nothing. Dynamic sampling throws such groups away and samples more prompts until the batch is full of useful groups. Both runs train on SAT with 8 clauses, two more than the default: the base solves about 3% of these on the first try, so most groups come back all wrong. Compare the runs on the accuracy of their first sampling round, before any refill: the batch dynamic sampling trains on has had its all-wrong groups replaced, so its accuracy is higher by construction, not because the policy learned more.',
    lookAt: ['frac_reward_zero_std', 'accuracy', 'sampling_rounds'],
    task: sat,
    steps: 150,
    runs: [
      { label: 'GRPO', preset: 'grpo', config: { difficulty: hardSat } },
      { label: 'GRPO + dynamic sampling', preset: 'grpo', config: { difficulty: hardSat, dynamic_sampling: true, max_refill_rounds: 2 } },
    ],
    measures: [
      { description: 'share of groups with zero reward variance (first sampling round)', metric: 'frac_reward_zero_std', window: 150 },
      { description: 'accuracy of the first sampling round (before any refill), last 20 steps', metric: 'accuracy/first_round', window: 20 },
    ],
    // Six seeds, not three: at 8 clauses a run either takes off or stays all wrong, and on seeds 1-3
    // that decided each seed (GRPO / dynamic sampling first-round accuracy 0.445 / 0.000, 0.000 /
    // 0.391, 0.320 / 0.431). Seeds 4 and 5 were piloted (docs/sweeps.md) and are not among these.
    seeds: [1, 2, 3, 8, 9, 10],
    // The rule of the first staging, now judged on the first round's accuracy: the trained batch's
    // accuracy (the metric it was judged on first) counts dynamic sampling's refills, which replace
    // all-wrong groups, so it rose under dynamic sampling whether or not the policy improved.
    verdict: (m) => {
      const zero = v(m, 0, 'frac_reward_zero_std');
      const gain = v(m, 1, 'accuracy/first_round') - v(m, 0, 'accuracy/first_round');
      if (zero < 0.15) return { shows: false, text: `Does not show at this difficulty: only ${pct(zero)} of GRPO's groups had zero reward variance, so dynamic sampling had almost nothing to replace (accuracy ${gain >= 0 ? '+' : ''}${f3(gain)}).` };
      return gain > 0.03
        ? { shows: true, text: `Shows: ${pct(zero)} of GRPO's groups carried no signal; refilling them raised the accuracy of the first sampling round by ${f3(gain)}.` }
        : { shows: false, text: `${pct(zero)} of GRPO's groups carried no signal, but refilling them did not raise the accuracy of the first sampling round here (${gain >= 0 ? '+' : ''}${f3(gain)}).` };
    },
  },
  {
    id: 'length-normalisation',
    title: 'Length and normalisation: GRPO vs Dr. GRPO',
    paper: 'Understanding R1-Zero-Like Training (Dr. GRPO)',
    claim: 'Dr. GRPO removes the per-sequence length normalisation and the std scaling that bias GRPO toward long wrong answers.',
    text: "GRPO divides each answer's loss by the answer's length. In a group, every wrong answer gets the same negative advantage, so a long wrong answer is pushed down less per token than a short one: its penalty is spread over more tokens. (The push on a token is how hard the update lowers that token's probability: the answer's advantage times the token's aggregation weight, the factor its loss is multiplied by.) The Dr. GRPO paper reports that, over long training, this lets wrong answers grow. Dr. GRPO divides every answer's loss by the same constant instead, so every token of every wrong answer in a group is pushed down alike. Dr. GRPO also stops dividing each group's advantages by their standard deviation (the std scaling); the paper names that a second bias, by question difficulty rather than length, and this lesson does not measure it. What this lesson shows is the push itself, in the live update. The Length bias chart shows, in each group, the push per token on its longest wrong answer divided by that on its shortest: 1 means alike; below 1, the long answer gets off lighter. Under GRPO the ratio is, by arithmetic, the shortest answer's length over the longest's: not a new finding, but the bias made visible. Dr. GRPO's sits at 1, off only where two wrong answers in a group earned different rewards (a well-formed wrong answer earns a small format reward, a malformed one none). On single tokens: in a step's rollouts, click a token of a long and of a short wrong answer in the same group and compare their aggregation weight. The result is in the box below. What does not show at this scale is the growth. Watch the Length of wrong answers chart: wrong answers come out longer under one objective on some seeds and under the other on others, here and in earlier trials on six task families (docs/sweeps.md). Why: the lighter push can only lengthen answers by making the model stop later, and this model ends every answer right after </answer> all but certainly, so the push barely moves that choice.",
    lookAt: ['length_bias/push_ratio', 'completions/mean_length_wrong'],
    task: sat,
    steps: 150,
    // Re-staged (session 20): the verdict judges the bias in the update itself, which every step
    // shows; the length of wrong answers, which no trial moved (docs/sweeps.md), is reported, not
    // judged. Fresh seeds for the new measurement.
    seeds: [32, 33, 34],
    runs: [
      { label: 'GRPO', preset: 'grpo', config: { max_completion_length: 64 } },
      { label: 'Dr. GRPO', preset: 'dr_grpo', config: { max_completion_length: 64 } },
    ],
    measures: [
      { description: 'per-token push on a group\'s longest wrong answer over its shortest\'s (1 = alike), all steps', metric: 'length_bias/push_ratio', window: 150 },
      { description: 'mean length of wrong completions (tokens), last 20 steps', metric: 'completions/mean_length_wrong', window: 20 },
    ],
    // Shows (rule fixed before the measurement, on the mean of seeds 32-34) when GRPO pushes a group's
    // longest wrong answer down at least 10% less per token than its shortest, relative to Dr. GRPO,
    // and Dr. GRPO pushes them alike (within 5%).
    verdict: (m) => {
      const grpo = v(m, 0, 'length_bias/push_ratio');
      const dr = v(m, 1, 'length_bias/push_ratio');
      const lg = v(m, 0, 'completions/mean_length_wrong');
      const ld = v(m, 1, 'completions/mean_length_wrong');
      const lengthGap =
        lg > ld * 1.1 ? ', longer under GRPO, as the paper reports' : ld > lg * 1.1 ? ": longer under Dr. GRPO, the opposite of the paper's direction (at this scale the gap goes either way from seed to seed)" : ': about as long under both';
      const lengths = `wrong answers ended ${lg.toFixed(1)} tokens long under GRPO and ${ld.toFixed(1)} under Dr. GRPO${lengthGap}`;
      const nums = `the per-token push on a group's longest wrong answer was ${pct(grpo)} of that on its shortest under GRPO, ${pct(dr)} under Dr. GRPO; ${lengths}`;
      return grpo <= 0.9 * dr && Math.abs(dr - 1) <= 0.05
        ? { shows: true, text: `Shows: GRPO's per-answer divisor let long wrong answers off lighter, Dr. GRPO's constant one did not (${nums}).` }
        : { shows: false, text: `Does not show: the per-token push did not differ as the rule asks (${nums}).` };
    },
  },
  {
    id: 'clip-higher',
    title: 'Clip-higher and entropy',
    paper: 'DAPO; Demystifying RL in Agentic Reasoning',
    claim: 'DAPO raises the upper clip (epsilon_high 0.28) so low-probability tokens can grow, against entropy collapse; "clip higher, overlong reward shaping, and maintaining adequate policy entropy" are recommended.',
    text: 'With a symmetric clip, a token whose probability is small can only grow by 20% per update, so exploration dies out. A higher upper clip lets it grow more. Compare entropy and the clip fractions, with four optimisation passes over four minibatches per batch, so the ratio leaves 1 far enough for the clip to act.',
    lookAt: ['entropy', 'clip_ratio/high_mean', 'clip_ratio/low_mean'],
    task: sat,
    steps: 150,
    runs: [
      { label: 'epsilon_high = 0.2', preset: 'grpo', config: { num_iterations: 4, minibatches: 4, learning_rate: 2e-4 } },
      { label: 'epsilon_high = 0.28', preset: 'grpo', config: { num_iterations: 4, minibatches: 4, learning_rate: 2e-4, epsilon_high: 0.28 } },
    ],
    measures: [
      { description: 'mean token entropy, last 20 steps', metric: 'entropy', window: 20 },
      { description: 'fraction of tokens clipped high', metric: 'clip_ratio/high_mean', window: 150 },
    ],
    verdict: (m) => {
      const sym = v(m, 0, 'entropy');
      const high = v(m, 1, 'entropy');
      return high > sym * 1.05
        ? { shows: true, text: `Shows: with epsilon_high = 0.28 entropy stayed ${pct(high / sym - 1)} higher (${f3(high)} vs ${f3(sym)}).` }
        : {
            shows: false,
            text: `Does not show here: entropy ended ${high < sym * 0.95 ? 'lower' : 'about the same'} with epsilon_high = 0.28 (${f3(high)} vs ${f3(sym)}). Only ${pct(v(m, 0, 'clip_ratio/high_mean'))} of tokens reached the upper clip, so its height barely acts and the two runs differ mostly by chance.`,
          };
    },
  },
  {
    id: 'token-vs-sequence',
    title: 'Token vs sequence ratios: GRPO vs GSPO',
    paper: 'Group Sequence Policy Optimization; SSPO; LUSPO',
    claim: 'GSPO uses a "response level importance ratio"; SSPO: when "all the response tokens share a common importance ratio, extreme values can [lead] to the entire response being mistakenly discarded".',
    text: 'Off-policy updates (μ = 2 passes, 2 minibatches) move the ratio away from 1. GRPO clips token by token; GSPO clips whole responses with a very tight range. Look at the ratio spread and how much gets clipped.',
    lookAt: ['ratio/min', 'ratio/max', 'clip_ratio/region_mean'],
    task: sat,
    steps: 150,
    runs: [
      { label: 'GRPO (token ratio)', preset: 'grpo', config: { num_iterations: 2, minibatches: 2 } },
      { label: 'GSPO (sequence ratio)', preset: 'gspo', config: { num_iterations: 2, minibatches: 2 } },
    ],
    measures: [
      { description: 'fraction of tokens clipped', metric: 'clip_ratio/region_mean', window: 150 },
      { description: 'largest ratio seen per step (mean)', metric: 'ratio/max', window: 150 },
    ],
    verdict: (m) => {
      const tok = v(m, 0, 'clip_ratio/region_mean');
      const seq = v(m, 1, 'clip_ratio/region_mean');
      return seq > tok * 2 && seq > 0.01
        ? { shows: true, text: `Shows: GSPO clipped ${pct(seq)} of tokens (whole responses at once) against GRPO's ${pct(tok)} token by token.` }
        : { shows: false, text: `The clipping differs little here: GSPO ${pct(seq)} vs GRPO ${pct(tok)} of tokens.` };
    },
  },
  {
    id: 'sharpening',
    title: 'Sharpening or new ability? pass@k, PSR and NSR',
    paper: 'Does RL Really Incentivize Reasoning Capacity Beyond the Base Model?; The Surprising Effectiveness of Negative Reinforcement',
    claim: 'pass@k is the chance that at least one of k tries is right. RL (reinforcement learning) wins at k = 1, but base models, before RL, "can achieve a comparable or even higher pass@k" at large k; training on negative samples only (NSR) "consistently improves performance over the base model across the entire Pass@k spectrum", while positive samples only (PSR) improves Pass@1 but degrades higher k.',
    text: 'Words first. The policy is the model being trained; the base policy is the shipped model before any RL. pass@1 is first-try accuracy; pass@16 says whether the model can solve a puzzle at all within 16 tries. Both are measured on held-out puzzles, never trained on. The puzzles are SAT: give each of 5 variables the value 0 or 1 so that every clause (an OR of 3 variables, some negated) is true, here with 5 clauses (n, k and m in the experiment below: variables, variables per clause, clauses), the level the base was trained on, so it already solves about half on the first try and nearly all within 16 tries. PSR (positive sample reinforcement) trains only on the right answers and makes them likelier; NSR (negative sample reinforcement) trains only on the wrong ones and makes them less likely, which spreads their probability over every other answer. Each run takes 150 training steps. Watch the Held-out pass@k chart: the base\'s curve against each run\'s. Expect both runs to lift pass@1. PSR concentrates the model\'s probability on answers it already finds, so the base catches up with it and overtakes it at larger k: that is sharpening. NSR removes wrong answers without choosing among the right ones, so it keeps more of the puzzles the base could solve in some try. The lesson shows its effect when both runs raise pass@1 by 3 points, PSR falls more than a point below the base at some k, and NSR\'s largest dip below the base is smaller than PSR\'s. A seed fixes a run\'s random draws; the measured numbers below are means over three seeds. In the paper\'s 7-billion-parameter model NSR stayed at or above the base at every k; an earlier version of this lesson (seeds 1 to 3) saw NSR dip a little below the base at k = 4 to 8 as well (its largest dip 0.020, PSR\'s 0.031), which is why the verdict compares the two dips. Read the verdict with care: it holds on the mean of the three seeds and on none alone, and two other seeds, evaluated on four times as many puzzles, did not show it (the project\'s docs/sweeps.md): at this size PSR and NSR differ by less than one seed differs from the next.',
    lookAt: ['eval'],
    task: sat,
    steps: 150,
    runs: [
      { label: 'PSR only', preset: 'psr_only', config: { difficulty: trainedSat } },
      { label: 'NSR only', preset: 'nsr_only', config: { difficulty: trainedSat } },
    ],
    measures: [{ description: 'held-out pass@1 and pass@16 at the end (base in the same table)', metric: 'eval', window: 1 }],
    // Re-staged with this rule before it was measured on seeds 11, 12 and 13 (never used for this
    // lesson). The first staging asked NSR to be at least as good as the base at every k, the paper's
    // 7B result; on seeds 1-3 both PSR and NSR fell below the base at k = 4..8, NSR less far (largest
    // shortfall 0.020 against PSR's 0.031, mean of seeds 1-3), so the first staging did not show.
    // The rule now tests what this scale can: both raise pass@1 by at least 3 points, PSR sharpens (the
    // base is ahead of it by more than one point at some k), and NSR's largest shortfall below the base
    // over k = 1..16 is smaller than PSR's.
    seeds: [11, 12, 13],
    verdict: (m) => {
      const b1 = pk(m.base_pass_at_k, 1);
      const ks = Object.keys(m.base_pass_at_k ?? {}).map(Number);
      const kMax = ks.length ? Math.max(...ks) : 1;
      const psr = m.runs[0]?.final_pass_at_k;
      const nsr = m.runs[1]?.final_pass_at_k;
      const psrGap = largestShortfall(m.base_pass_at_k, psr);
      const nsrGap = largestShortfall(m.base_pass_at_k, nsr);
      const bothUp = pk(psr, 1) >= b1 + 0.03 && pk(nsr, 1) >= b1 + 0.03;
      const psrSharpens = psrGap.gap > 0.01;
      const nsrKeepsMore = nsrGap.gap < psrGap.gap;
      const gapText = (g: { gap: number; k: number }) => (g.gap > 0 ? `${f3(g.gap)} (at k = ${g.k})` : 'none (at or above the base at every k)');
      const nums = `pass@1: base ${f3(b1)}, PSR ${f3(pk(psr, 1))}, NSR ${f3(pk(nsr, 1))}; largest shortfall below the base over k = 1..${kMax}: PSR ${gapText(psrGap)}, NSR ${gapText(nsrGap)}`;
      if (!bothUp) return { shows: false, text: `Does not show: not both runs raised pass@1 by 3 points (${nums}).` };
      if (!psrSharpens) return { shows: false, text: `Does not show: PSR stayed within a point of the base at every k, so there was no sharpening to compare against (${nums}).` };
      return nsrKeepsMore
        ? { shows: true, text: `Shows: both raised pass@1, PSR sharpened (the base overtook it at large k), and NSR stayed closer to the base's pass@k than PSR did (${nums}).` }
        : { shows: false, text: `Does not show: PSR sharpened, but NSR fell as far or further below the base at large k (${nums}).` };
    },
  },
  {
    id: 'noisy-verifiers',
    title: 'Noisy verifiers: the signal shrinks by 1 − 2p, more samples buy it back',
    paper: 'The Climb Carves Wisdom (noisy rewards); Imperfect Verifiers',
    claim: '"flipping 40% of the reward function\'s outputs" in math tasks still took Qwen-2.5-7B, a model of 7 billion parameters, "from 5% to 72%" accuracy, against "75%" with clean rewards.',
    text: `The verifier is the program that judges each answer right or wrong; that verdict is most of the reward. Here it is made noisy on purpose: it flips a fraction p of its verdicts at random, both ways (a right answer judged wrong, a wrong one judged right). A right answer is then judged right with probability 1 − p and a wrong one with probability p, so the gap between them, which is what the advantage (a completion's reward against its group's mean) learns from, shrinks from 1 to 1 − 2p. Flipping keeps the direction of the expected advantage but scales it by 1 − 2p, while the noise in each step's gradient stays. Averaging n samples shrinks noise by √n, so a noisy run needs (1 − 2p)^−2 = 1 / (1 − 2p)² times the samples per step for the same signal-to-noise ratio: ${noiseCompensation(0.2).toFixed(1)}× at 20% noise, ${noiseCompensation(0.4).toFixed(0)}× at 40%. A 7B model trained for long has samples to spare; our 150 steps do not. Three runs: clean; 20% flipped; 20% flipped with ${Math.round(8 * noiseCompensation(0.2))} prompts per step instead of 8 (the compensation). At 40% the same rule asks for ${noiseCompensation(0.4).toFixed(0)}× the samples, which is why a 40%-noise run of the same length falls far behind here (measured in an earlier version of this lesson: true batch accuracy 0.158 against 0.552 clean, mean of seeds 1–3). Accuracy is always measured with the strict, noiseless verifier (the Accuracy (strict verifier) chart); what the noisy verifier reported is in "Accuracy as judged by the training verifier", and how many verdicts it flipped in "Verdicts flipped by the noise".`,
    lookAt: ['accuracy', 'accuracy/observed', 'noise_flips'],
    task: sat,
    steps: 150,
    runs: [
      { label: 'clean', preset: 'grpo', config: {} },
      { label: '20% flipped', preset: 'grpo', config: { noise_p_fn: 0.2, noise_p_fp: 0.2 } },
      { label: `20% flipped, ${Math.round(8 * noiseCompensation(0.2))} prompts per step`, preset: 'grpo', config: { noise_p_fn: 0.2, noise_p_fp: 0.2, prompts_per_step: Math.round(8 * noiseCompensation(0.2)) } },
    ],
    measures: [
      { description: 'true batch accuracy, last 20 steps', metric: 'accuracy', window: 20 },
      { description: 'held-out pass@1 and pass@16 at the end (base in the same table)', metric: 'eval', window: 1 },
    ],
    // Shows when the compensated 20% run recovers at least three quarters of the clean run's held-out
    // gain over the base, and more of it than the uncompensated 20% run.
    verdict: (m) => {
      const base = pk(m.base_pass_at_k, 1);
      const [clean, n20, n20x] = [0, 1, 2].map((i) => pk(m.runs[i]?.final_pass_at_k, 1) - base) as [number, number, number];
      const sign = (x: number) => `${x >= 0 ? '+' : ''}${f3(x)}`;
      const nums = `held-out pass@1 gain over the base (${f3(base)}): clean ${sign(clean)}, 20% flipped ${sign(n20)}, 20% flipped with ${Math.round(8 * noiseCompensation(0.2))} prompts ${sign(n20x)}`;
      if (!(clean > 0.05)) return { shows: false, text: `The clean run did not learn enough to compare against (${nums}).` };
      const recovered = n20x / clean;
      return recovered >= 0.75 && n20x > n20
        ? { shows: true, text: `Shows: with (1 − 2p)^−2 times the samples per step, the 20%-noise run recovered ${pct(recovered)} of the clean gain, against ${pct(n20 / clean)} without them (${nums}).` }
        : { shows: false, text: `Does not show here: the compensated 20%-noise run recovered ${pct(recovered)} of the clean gain, against ${pct(n20 / clean)} without the extra samples (${nums}).` };
    },
  },
  {
    id: 'reward-hacking',
    title: 'Reward hacking with a leaky verifier',
    paper: 'Pitfalls of rule- and model-based verifiers',
    claim: 'Model-based verifiers are "highly susceptible to hacking"; rule-based ones "fail to recognize equivalent answers".',
    text: "The SAT verifier's leaky variant treats missing positions of the assignment as wildcards, so a short answer passes. Train against it and compare what it rewards with what the strict verifier says about the same completions.",
    lookAt: ['accuracy/observed', 'accuracy', 'completions/mean_length'],
    task: sat,
    steps: 150,
    runs: [
      { label: 'strict verifier', preset: 'grpo', config: {} },
      { label: 'leaky verifier', preset: 'grpo', config: { leaky_verifier: true } },
    ],
    measures: [
      { description: 'accuracy the training verifier reports, last 20 steps', metric: 'accuracy/observed', window: 20 },
      { description: 'strict accuracy of the same completions, last 20 steps', metric: 'accuracy', window: 20 },
    ],
    verdict: (m) => {
      const reported = v(m, 1, 'accuracy/observed');
      const strict = v(m, 1, 'accuracy');
      return reported - strict > 0.3
        ? { shows: true, text: `Shows: the leaky verifier reported ${f3(reported)} while the strict verifier judged the same completions ${f3(strict)}.` }
        : { shows: false, text: `No hacking seen in this run: reported ${f3(reported)}, strict ${f3(strict)}.` };
    },
  },
  {
    id: 'easy-to-hard',
    title: 'Easy to hard: a SATURN-style ladder',
    paper: 'SATURN',
    claim: 'SATURN trains on SAT puzzles with a curriculum "from easy to hard" and "a principled mechanism to control difficulty transitions", and reports pass@3 (solved within 3 tries) "+14.0 and +28.1" points for models of 1.5 and 7 billion parameters (1.5B/7B).',
    text: 'Words first. A curriculum trains on easy problems first, then harder ones. The base policy is the shipped model before RL. For each puzzle GRPO samples a group of answers and pushes each one up or down by its advantage: its reward against its group\'s average. pass@k is the chance that one of k tries is right; held-out puzzles are never trained on. The target is 4×4 sudoku with 10 of its 16 cells blank, the hardest 4×4 level. The base solves none of these: its held-out pass@16 is 0 over 32 puzzles. Run A (fixed) trains there directly: it starts with groups that are all wrong, so every advantage is 0 and nothing is learned until a rare success turns up. Run B (ladder) starts at 8 blanks (ladder_start = 2: the ladder\'s levels are 4, 6, 8 and 10 blanks, counted from 0) and moves up a level when its accuracy over the last 5 steps (the Accuracy chart) reaches 0.4, down a level below 0.05. The levels overlap: an answer at 10 blanks is an answer at 8 blanks with two more cell assignments, so what the ladder learns at 8 carries over. Both train 8 puzzles a step (64 answers) for 150 steps. Watch the Difficulty chart (the ladder\'s level over time), the fixed run\'s Accuracy chart (flat at 0 until its first success), and held-out pass@1 at 10 blanks. The lesson shows its effect when the ladder ends more than 0.03 (3 percentage points) of held-out pass@1 above the fixed run at the target, on the mean over six seeds. The result is in the box below (seeds 23 to 28); what follows is how this setup was chosen, not the result. The number of answers a step matters. At 16 puzzles a step (128 answers) direct training found rare successes by step 25 to 45 and caught up, and the ladder did not help (seeds 11 to 16: fixed 0.236, ladder 0.216); that is why this staging trains 8. Trial runs at 8 puzzles a step (seeds 4, 5 and 6, used only to choose the setup) looked better for the ladder than the measurement did: the fixed run found no success in 150 steps on two of the three (held-out pass@1 fixed 0.000, 0.000 and 0.250; ladder 0.256, 0.221 and 0.281). On the six measured seeds direct training found its first success on five, between steps 23 and 41. So the ladder\'s advantage is smaller than the trials suggested: it reaches the target 20 to 40 steps sooner, and it still learns on a seed where direct training never starts. An earlier version of this lesson, on SAT (the logic puzzle of the other lessons, target 8 clauses), did not show, because there the levels do not overlap: a SAT answer names one literal per clause, a model trained on 6-clause answers failed almost every 8-clause problem (0 to 8% each time the ladder moved up), and direct training found its rare successes (held-out pass@1, mean of seeds 1 to 3: base 0.036, fixed 0.264, ladder 0.031).',
    lookAt: ['accuracy', 'difficulty', 'eval'],
    task: 'sudoku',
    steps: 150,
    runs: [
      { label: 'fixed', preset: 'grpo', config: { prompts_per_step: 8, difficulty: hardSudoku } },
      { label: 'ladder', preset: 'grpo', config: { prompts_per_step: 8, difficulty: hardSudoku, curriculum: 'ladder', ladder_start: 2, ladder_window: 5, ladder_advance_at: 0.4, ladder_step_back_at: 0.05 } },
    ],
    measures: [
      { description: 'batch accuracy, last 20 steps (at the current level)', metric: 'accuracy', window: 20 },
      { description: 'held-out pass@1 and pass@16 at the target at the end (base in the same table)', metric: 'eval', window: 1 },
    ],
    // Re-staged a second time (the rule of the first staging, unchanged): at 16 puzzles a step, on
    // seeds 11 to 16, direct training found rare successes and caught up (fixed 0.236, ladder 0.216;
    // docs/sweeps.md). Now at 8 puzzles a step, where the pilots (seeds 4, 5, 6: ladder minus fixed
    // +0.256, +0.221, +0.031) found direct training stuck at 0 on two of three seeds. The number is set
    // here: left unset it falls to sudoku-tiny's recipe (64 a step), which is how seeds 17 to 20 were
    // run by mistake (docs/sweeps.md); measured on seeds 23 to 28, never used for this lesson.
    seeds: [23, 24, 25, 26, 27, 28],
    verdict: (m) => {
      const base = pk(m.base_pass_at_k, 1);
      const fixed = pk(m.runs[0]?.final_pass_at_k, 1);
      const ladder = pk(m.runs[1]?.final_pass_at_k, 1);
      const nums = `held-out pass@1 at the hard level: base ${f3(base)}, fixed ${f3(fixed)}, ladder ${f3(ladder)}`;
      if (!Number.isFinite(ladder)) return { shows: false, text: 'Not measured at the hard level: run the lesson again to get the held-out evaluation.' };
      return ladder > fixed + 0.03
        ? { shows: true, text: `Shows: training on the ladder transferred to the hard level better than training on it directly (${nums}).` }
        : { shows: false, text: `No advantage for the ladder at the hard level in this run (${nums}). Training at the target directly found its rare successes as fast as the ladder's easier level taught them.` };
    },
  },
  {
    id: 'zero-loss',
    title: 'Why is my loss zero?',
    paper: 'DeepSeekMath (GRPO); PPO (Schulman et al., 2017)',
    claim: 'A common question from GRPO users: the logged loss starts at 0 and stays there, while the rewards rise. It is not a bug.',
    text: "First the words. The policy π is the model being trained; π_old is the same model as it was when it sampled the batch. For each prompt GRPO (Group Relative Policy Optimization) samples a group of completions, and each completion's advantage is its reward minus its group's mean reward (divided by the group's spread): above 0 means better than the others of its group. The ratio π/π_old says how much likelier a token has become since it was sampled. With one optimisation pass per batch (μ = 1; μ is the number of passes) the model has not changed yet when the loss is computed, so the ratio is exactly 1 and each completion's loss is minus its advantage. A group's advantages are centred on their mean, so they add up to 0, and so do the group's losses. β (the weight of the KL penalty, which keeps π close to a frozen copy of the starting model; KL measures how far apart two probability distributions are) is 0, so there is no KL term. The loss is 0 by construction, but its gradient is not: it is the gradient of each token's log-probability, weighted by the advantage, and it trains the policy. Three runs: μ = 1 and β = 0 (the loss is 0); β = 0.04 (the KL term makes it positive); μ = 2 passes over 2 minibatches (the batch split in two halves, one update each), so after the first update the ratio leaves 1 and the clipped objective (PPO's loss, which caps how far one update may move the ratio) is no longer 0. Watch the loss, Gradient norm (the size of the gradient) and Reward charts side by side: the loss stays flat while the reward rises.",
    lookAt: ['loss', 'grad_norm', 'reward'],
    task: sat,
    steps: 150,
    runs: [
      { label: 'μ = 1, β = 0', preset: 'grpo', config: {} },
      { label: 'β = 0.04', preset: 'grpo', config: { beta: 0.04 } },
      { label: 'μ = 2, 2 minibatches', preset: 'grpo', config: { num_iterations: 2, minibatches: 2 } },
    ],
    measures: [
      { description: 'mean |loss| over all steps', metric: 'loss', window: 150, abs: true },
      { description: 'mean gradient norm over all steps', metric: 'grad_norm', window: 150 },
      { description: 'held-out pass@1 and pass@16 at the end (base in the same table)', metric: 'eval', window: 1 },
    ],
    // Shows when the μ = 1, β = 0 run's loss stays below 1e-5 in magnitude while its gradient norm
    // averages over 0.1 and its held-out pass@1 rises 5 points over the base, and each of the other two
    // runs' |loss| is at least 100 times the first run's.
    verdict: (m) => {
      const loss = [0, 1, 2].map((i) => v(m, i, '|loss|')) as [number, number, number];
      const grad = v(m, 0, 'grad_norm');
      const gain = pk(m.runs[0]?.final_pass_at_k, 1) - pk(m.base_pass_at_k, 1);
      const e = (x: number) => x.toExponential(1);
      const nums = `mean |loss|: μ = 1, β = 0 ${e(loss[0])}; β = 0.04 ${e(loss[1])}; μ = 2 ${e(loss[2])}. Gradient norm of the first run ${f3(grad)}, its held-out pass@1 ${gain >= 0 ? '+' : ''}${f3(gain)} over the base`;
      const zeroButLearns = loss[0] < 1e-5 && grad > 0.1 && gain > 0.05;
      const othersMove = loss[1] >= 100 * loss[0] && loss[2] >= 100 * loss[0];
      return zeroButLearns && othersMove
        ? { shows: true, text: `Shows: the loss stayed at 0 while the gradient trained the policy, and β > 0 or μ > 1 moved the loss off 0 (${nums}).` }
        : { shows: false, text: `Does not show as stated (${nums}).` };
    },
  },
  {
    id: 'no-signal',
    title: 'No signal: identical rewards in a group',
    paper: 'DeepSeekMath (GRPO); ReST-RL',
    claim: 'GRPO "faces failure due to insignificant reward variance" (ReST-RL): when every completion sampled for a prompt (its group) gets the same reward, that prompt gives nothing to learn from. Users meet it as "the loss is 0 but the rewards vary": across the batch the rewards vary, but inside every group they were identical.',
    text: 'For each prompt GRPO samples a group of G completions and gives each an advantage: its reward compared with the mean reward of its own group. The advantage is the only learning signal. If the group\'s rewards are all equal (all right or all wrong), every advantage is 0 and the group is silent: it teaches nothing. If a prompt is solved with probability p on each try, all G completions agree with probability p^G + (1 − p)^G (p^G is p multiplied by itself G times). Near p = 0 or p = 1 almost every group is silent, whatever the batch mean says. Three runs on SAT (find 0/1 values for 5 variables that make every clause true; a clause is an OR of 3 variables, some negated): at 8 clauses (the base policy, the shipped model before RL, solves about 3%) with G = 8 and with G = 16, and at the checkpoint\'s own level (6 clauses, where the base solves about 26%) with G = 8. Larger groups and easier prompts are two levers against silence. Watch the Zero-variance groups chart (frac_reward_zero_std: the share of silent groups) next to accuracy. The loss is no sign of silence: it is 0 by construction in every run here (the lesson "Why is my loss zero?" shows why). (Dynamic sampling, the third lever, refills silent groups instead of preventing them: the lesson "Why groups?" measures it.)',
    lookAt: ['frac_reward_zero_std', 'accuracy', 'sampling_rounds'],
    task: sat,
    steps: 150,
    runs: [
      { label: 'hard, G = 8', preset: 'grpo', config: { difficulty: hardSat } },
      { label: 'hard, G = 16', preset: 'grpo', config: { difficulty: hardSat, num_generations: 16 } },
      { label: 'checkpoint level, G = 8', preset: 'grpo', config: {} },
    ],
    measures: [
      { description: 'share of groups with zero reward variance (first sampling round)', metric: 'frac_reward_zero_std', window: 150 },
      { description: 'batch accuracy, last 20 steps', metric: 'accuracy', window: 20 },
    ],
    // Shows when at least 30% of the hard G = 8 run's groups are silent, and both levers cut that share:
    // G = 16 by at least 5 points and the easier level by at least 10 points.
    verdict: (m) => {
      const z = [0, 1, 2].map((i) => v(m, i, 'frac_reward_zero_std')) as [number, number, number];
      const acc = [0, 1, 2].map((i) => v(m, i, 'accuracy')) as [number, number, number];
      const nums = `zero-variance groups: hard G = 8 ${pct(z[0])}, hard G = 16 ${pct(z[1])}, checkpoint level ${pct(z[2])}; batch accuracy ${f3(acc[0])}, ${f3(acc[1])}, ${f3(acc[2])}`;
      const silent = z[0] >= 0.3;
      const shows = silent && z[1] <= z[0] - 0.05 && z[2] <= z[0] - 0.1;
      if (!silent) return { shows: false, text: `Does not show: too few silent groups at the hard level to study (${nums}).` };
      return shows
        ? { shows: true, text: `Shows: most hard groups carried no signal; doubling the group or easing the level gave more of them a signal (${nums}).` }
        : { shows: false, text: `Partly: the hard level left many groups silent, but a larger group or an easier level did not cut that share as expected (${nums}).` };
    },
  },
  {
    id: 'forking-tokens',
    title: 'High-entropy forking tokens: train on the top 20%',
    paper: 'Beyond the 80/20 Rule (Wang et al., 2025)',
    claim: 'Beyond the 80/20 Rule reports that updating only the ~20% of tokens with the highest entropy (the "forking" tokens where the reasoning branches) matches or beats updating all of them. A token\'s entropy measures how unsure the model was when it picked it: near 0 when one choice was almost certain, high when several were likely.',
    text: 'Words first. A token is one character of the answer here. Training pushes each sampled token\'s probability up or down by its advantage: how much better its answer scored than the other answers sampled for the same puzzle. The puzzles are 4×4 sudoku. The model first writes its working between <think> tags as cell assignments (a3=3 b1=3 …: row letter, column number, digit), then the whole grid between <answer> tags. Most tokens are forced: the tags, the separators, the digits the puzzle gives, and every cell whose digit follows from its row, column and box. A few are real choices: which empty cell to fill next, and a digit the model is unsure of. Three runs, each 150 training steps of GRPO (the standard recipe) on 16 puzzles a step: A trains on every token; B (top_entropy_quantile = 0.2) only on the 20% of tokens with the highest entropy in each batch, so the other 80% do not affect training; C (random_token_fraction = 0.2) on as many tokens, 20%, drawn at random. Watch held-out pass@1 (the share of puzzles never trained on that are solved on the first try) for A, B and C, and in the Rollouts tab (the sampled answers, token by token) which tokens are trained. The lesson shows its effect when B ends within the evaluation\'s noise of A and more than 5 points above C: then what matters is which tokens are trained, not how many. An earlier version of this lesson ran on SAT (the logic puzzle of the other lessons): there B fell behind A (held-out pass@1, mean of seeds 1 to 3: base 0.253, A 0.578, B 0.356) and in a trial run a random fifth did as well as B (0.465 against 0.445). A SAT answer is a list of choices, nearly every token a decision, so picking the most uncertain fifth singles out little.',
    lookAt: ['accuracy', 'entropy', 'eval'],
    task: 'sudoku',
    steps: 150,
    // 16 prompts per step, not the recipe's 64 (a lesson arm stays near two minutes); the recipe's
    // difficulty, temperature and completion cap otherwise.
    runs: [
      { label: 'all tokens', preset: 'grpo', config: { prompts_per_step: 16 } },
      { label: 'top 20% entropy', preset: 'grpo', config: { prompts_per_step: 16, top_entropy_quantile: 0.2 } },
      { label: 'random 20%', preset: 'grpo', config: { prompts_per_step: 16, random_token_fraction: 0.2 } },
    ],
    measures: [
      { description: 'held-out pass@1 and pass@16 at the end (base in the same table)', metric: 'eval', window: 1 },
      { description: 'batch accuracy, last 20 steps', metric: 'accuracy', window: 20 },
    ],
    // Re-staged on sudoku with this rule before it was measured on seeds 11, 12 and 13 (never used for
    // this lesson; pilots on seeds 4 and 5, docs/sweeps.md). Shows when full training gains at least 5
    // points of held-out pass@1 over the base, the top-20% run ends no more than max(0.03, one standard
    // error over the held-out prompts) below full training (the first staging's test), and the top-20%
    // run ends more than 5 points above the random 20% (about one standard error of a three-seed mean).
    seeds: [11, 12, 13],
    verdict: (m) => {
      const base = pk(m.base_pass_at_k, 1);
      const [all, top, rand] = [0, 1, 2].map((i) => pk(m.runs[i]?.final_pass_at_k, 1)) as [number, number, number];
      const nums = `held-out pass@1: base ${f3(base)}, all tokens ${f3(all)}, top 20% ${f3(top)}, random 20% ${f3(rand)}`;
      if (!(all > base + 0.05)) return { shows: false, text: `Does not show: full training did not learn enough to compare against (${nums}).` };
      const matches = top >= all - Math.max(0.03, passKNoise(all));
      const beatsRandom = top > rand + 0.05;
      if (matches && beatsRandom) return { shows: true, text: `Shows: training on the highest-entropy fifth of the tokens kept up with training on all of them, and a random fifth fell behind (${nums}).` };
      return {
        shows: false,
        text: !matches
          ? `Does not show: the top-20% run fell behind full training by more than the evaluation noise (${nums}).`
          : `Does not show: the top fifth kept up with full training, but a random fifth did about as well, so the choice by entropy did not matter here (${nums}).`,
      };
    },
  },
  {
    id: 'cispo-vs-clip',
    title: 'CISPO vs clipping: the clip as a trust region',
    paper: 'MiniMax-M1 (CISPO); ScaleRL: The Art of Scaling RL Compute for LLMs',
    claim: 'MiniMax-M1 clips the importance-sampling weight (the ratio π/π_old: how much likelier a token is now than when it was sampled) instead of the token update, so every token keeps its gradient; ScaleRL adopts CISPO (clipped importance-sampling policy optimisation, from MiniMax-M1) as its loss.',
    text: "This lesson shows the other side of the paper's claim: what the clip's silence buys at this scale. Each sampled batch is used for several updates, so the policy π (the model being trained) drifts from π_old, the model that sampled the batch; the ratio π/π_old measures that drift, token by token. GRPO keeps the clip of PPO (Proximal Policy Optimization, the classic algorithm GRPO builds on): once a token's ratio has moved more than ε (0.2 here) past 1 in the direction its update pushes (up for a token of a better-than-average answer, down for one of a worse answer), the token gets no gradient for the rest of the batch: it is silenced. That silence also limits how far one batch can move the policy: a trust region. CISPO never silences a token: it scales each token's usual gradient by the token's ratio, capped at ε_max = 5, so rare tokens that move fast keep learning; MiniMax-M1 reports that this trains faster, on a model far larger than this one. Both runs here use each batch hard: it is split into four quarters, and each quarter gets four passes, sixteen updates in all. Watch the Clip fraction chart (the share of tokens GRPO silences; for CISPO, which silences none, the share whose ratio hit the cap), the Reward (0.9 for a right answer, plus 0.1 for a well-formed one), and the Held-out pass@k chart (pass@1 is the share of unseen problems solved on the first try). Entropy (how unsure the model is when it picks a token) is reported, not judged. The result is in the box below. The runs differ in the objective and in how token losses are averaged; in earlier trials a clipped run averaged as CISPO's is learned too, so the averaging is not the cause, and CISPO collapsed the same way with its cap at 2 or 1.28. With lighter reuse (two passes over two halves of each batch), where GRPO's clip silenced about 1% of tokens, CISPO still trailed: held-out pass@1 0.505 for CISPO against 0.684 for GRPO, over six seeds (docs/sweeps.md).",
    lookAt: ['clip_ratio/region_mean', 'reward', 'entropy', 'eval'],
    task: sat,
    steps: 150,
    // Re-staged (session 20) after the pilots in docs/sweeps.md: at sixteen updates a batch the clip
    // learned on every pilot (0.658, and 0.637/0.699 with a token mean) while CISPO collapsed on every
    // one, whatever its cap. Fresh seeds: none of 1-28 has been used for this setup's verdict.
    seeds: [29, 30, 31],
    runs: [
      { label: 'GRPO (clipped objective)', preset: 'grpo', config: { num_iterations: 4, minibatches: 4 } },
      { label: 'CISPO (clipped weight)', preset: 'cispo', config: { num_iterations: 4, minibatches: 4 } },
    ],
    measures: [
      { description: 'fraction of tokens outside the clip range', metric: 'clip_ratio/region_mean', window: 150 },
      { description: 'mean token entropy, last 20 steps', metric: 'entropy', window: 20 },
      { description: 'held-out pass@1 and pass@16 at the end (base in the same table)', metric: 'eval', window: 1 },
    ],
    // Shows (rule fixed before the measurement, on the mean of seeds 29-31) when GRPO's clip silences
    // at least 1% of tokens (so the objectives differ at all), GRPO learns at least 5 points of
    // held-out pass@1 over the base, and CISPO, which keeps those tokens' gradient, ends more than
    // max(0.03, one standard error) below GRPO.
    verdict: (m) => {
      const base = pk(m.base_pass_at_k, 1);
      const grpo = pk(m.runs[0]?.final_pass_at_k, 1);
      const cispo = pk(m.runs[1]?.final_pass_at_k, 1);
      const silenced = v(m, 0, 'clip_ratio/region_mean');
      const nums = `GRPO's clip silenced ${pct(silenced)} of tokens; held-out pass@1 base ${f3(base)}, GRPO ${f3(grpo)}, CISPO ${f3(cispo)}; entropy GRPO ${f3(v(m, 0, 'entropy'))}, CISPO ${f3(v(m, 1, 'entropy'))}`;
      if (silenced < 0.01) return { shows: false, text: `Does not show: the clip barely acted, so the objectives hardly differ here (${nums}).` };
      if (!(grpo > base + 0.05)) return { shows: false, text: `Does not show: the clipped objective itself did not learn (${nums}).` };
      return cispo < grpo - Math.max(0.03, passKNoise(grpo))
        ? { shows: true, text: cispo < base ? `Shows: the clipped objective learned, while CISPO, which keeps every token's gradient, collapsed below the base (${nums}).` : `Shows: the clipped objective learned, and CISPO, which keeps every token's gradient, fell behind it (${nums}).` }
        : { shows: false, text: `Does not show: CISPO kept up with the clipped objective even at sixteen updates a batch (${nums}).` };
    },
  },
];

export function getLesson(id: string): Lesson {
  const l = lessons.find((x) => x.id === id);
  if (!l) throw new Error(`unknown lesson "${id}" (known: ${lessons.map((x) => x.id).join(', ')})`);
  return l;
}

/** The verdict rule applied to each seed alone; the recorded verdict is the rule on the mean over seeds. */
export function perSeedVerdicts(lesson: Lesson, m: MeasuredLesson): { seed: number; verdict: Verdict }[] {
  return (m.per_seed ?? []).map((p) => ({ seed: p.seed, verdict: lesson.verdict({ ...m, runs: p.runs, base_pass_at_k: p.base_pass_at_k, per_seed: undefined }) }));
}

export interface MeasuredRun {
  label: string;
  values: Record<string, number>;
  final_pass_at_k?: Record<string, number>;
}

export interface MeasuredLesson {
  id: string;
  steps: number;
  /** The first (or only) seed. */
  seed: number;
  /** Several seeds: `runs` and `base_pass_at_k` are their means; each seed's own numbers are in `per_seed`. */
  seeds?: number[];
  per_seed?: { seed: number; runs: MeasuredRun[]; base_pass_at_k?: Record<string, number> }[];
  date: string;
  runs: MeasuredRun[];
  base_pass_at_k?: Record<string, number>;
  summary: string;
}
