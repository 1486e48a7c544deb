import { pk, f3, pct, sat, noiseCompensation, type Lesson } from './lesson.ts';

export const noisyVerifiers: Lesson = {
  id: 'noisy-verifiers',
  title: 'Noisy verifiers: the signal shrinks by 1 − 2p, more samples buy it back',
  paper: 'The Climb Carves Wisdom (noisy rewards); Imperfect Verifiers',
  claim:
    '"flipping 40% of the reward function\'s outputs" in math tasks still took Qwen-2.5-7B, a model of 7 billion ' +
    'parameters, "from 5% to 72%" accuracy, against "75%" with clean rewards.',
  text:
    'The verifier is the program that judges each answer right or wrong; that verdict is most of the ' +
    'reward. Here it is made noisy on purpose: it flips a fraction p of its verdicts at random, both ways ' +
    '(a right answer judged wrong, a wrong one judged right). A right answer is then judged right with ' +
    'probability 1 − p and a wrong one with probability p, so the gap between them, which is what the ' +
    `advantage (a completion's reward against its group's mean) learns from, shrinks from 1 to 1 − 2p. ` +
    'Flipping keeps the direction of the expected advantage but scales it by 1 − 2p, while the noise in ' +
    `each step's gradient stays. Averaging n samples shrinks noise by √n, so a noisy run needs (1 − 2p)^−2 ` +
    '= 1 / (1 − 2p)² times the samples per step for the same signal-to-noise ratio: ' +
    `${noiseCompensation(0.2).toFixed(1)}× at 20% noise, ${noiseCompensation(0.4).toFixed(0)}× at 40%. A 7B ` +
    'model trained for long has samples to spare; our 150 steps do not. Three runs: clean; 20% flipped; 20% ' +
    `flipped with ${Math.round(8 * noiseCompensation(0.2))} prompts per step instead of 8 (the ` +
    `compensation). At 40% the same rule asks for ${noiseCompensation(0.4).toFixed(0)}× the samples, which ` +
    'is why a 40%-noise run of the same length falls far behind here (measured in an earlier version of ' +
    'this lesson: true batch accuracy 0.158 against 0.552 clean, mean of seeds 1–3). Accuracy is always ' +
    'measured with the strict, noiseless verifier (the Accuracy (batch pass@1): true chart); what the noisy ' +
    'verifier reported is in "Accuracy as judged by the training verifier", and how many verdicts it ' +
    'flipped in "Verdicts flipped by the noise".',
  lookAt: ['accuracy', 'accuracy/observed', 'noise_flips', 'eval'],
  task: sat,
  steps: 150,
  runs: [
    { label: 'clean', preset: 'grpo', config: {} },
    { label: '20% flipped', preset: 'grpo', config: { noise_p_fn: 0.2, noise_p_fp: 0.2 } },
    {
      label: `20% flipped, ${Math.round(8 * noiseCompensation(0.2))} prompts per step`,
      preset: 'grpo',
      config: { noise_p_fn: 0.2, noise_p_fp: 0.2, prompts_per_step: Math.round(8 * noiseCompensation(0.2)) },
    },
  ],
  measures: [
    { description: 'true batch accuracy, last 20 steps', metric: 'accuracy', window: 20 },
    { description: 'held-out pass@1 and pass@16 at the end (base in the same table)', metric: 'eval', window: 1 },
  ],
  // Shows when the compensated 20% run recovers at least three quarters of the clean run's held-out
  // gain over the base, and more of it than the uncompensated 20% run.
  verdict: (m) => {
    const base = pk(m.base_pass_at_k, 1);
    const [clean, n20, n20x] = [0, 1, 2].map((i) => pk(m.runs[i]?.final_pass_at_k, 1) - base) as [
      number,
      number,
      number,
    ];
    const sign = (x: number) => `${x >= 0 ? '+' : ''}${f3(x)}`;
    const nums =
      `held-out pass@1 gain over the base (${f3(base)}): clean ${sign(clean)}, 20% flipped ${sign(n20)}, ` +
      `20% flipped with ${Math.round(8 * noiseCompensation(0.2))} prompts ${sign(n20x)}`;
    if (!(clean > 0.05))
      return { shows: false, text: `The clean run did not learn enough to compare against (${nums}).` };
    const recovered = n20x / clean;
    return recovered >= 0.75 && n20x > n20
      ? {
          shows: true,
          text:
            `Shows: with (1 − 2p)^−2 times the samples per step, the 20%-noise run recovered ${pct(recovered)} ` +
            `of the clean gain, against ${pct(n20 / clean)} without them (${nums}).`,
        }
      : {
          shows: false,
          text:
            `Does not show here: the compensated 20%-noise run recovered ${pct(recovered)} of the clean ` +
            `gain, against ${pct(n20 / clean)} without the extra samples (${nums}).`,
        };
  },
};
