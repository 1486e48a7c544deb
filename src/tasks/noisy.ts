/**
 * Noisy verifier for teaching (the verifier as a noisy channel, "Imperfect Verifiers"): a correct
 * verdict becomes wrong with probability pFn (false negative), a wrong one correct with pFp (false
 * positive). Flips are seeded: with a key (e.g. "step:prompt:rollout") the draw depends only on
 * (seed, key), so a replayed rollout gets the same flip; without a key a seeded stream is used.
 * The returned verdict keeps the true one so the UI can show both.
 */
import { Rng, type RngState } from '../util/rng.ts';
import type { TaskFamily, TaskInstance, Verdict, VerifyOptions } from './types.ts';

export interface NoiseConfig {
  /** P(correct -> wrong). */
  pFn: number;
  /** P(wrong -> correct). */
  pFp: number;
  seed: number;
}

export interface NoisyVerdict extends Verdict {
  flipped: 'fn' | 'fp' | null;
  trueVerdict: Verdict;
}

function checkProb(name: string, p: number): void {
  if (typeof p !== 'number' || !(p >= 0 && p <= 1))
    throw new Error(`noisy verifier: ${name} must be a probability in [0, 1], got ${String(p)}`);
}

/** Applies the channel to one verdict given a uniform draw u in [0, 1). */
export function applyNoise(verdict: Verdict, cfg: Pick<NoiseConfig, 'pFn' | 'pFp'>, u: number): NoisyVerdict {
  if (verdict.correct && u < cfg.pFn) {
    return {
      correct: false,
      components: { ...verdict.components, correctness: 0 },
      reason: `noisy verifier flipped a correct answer to wrong (false negative); truly: ${verdict.reason}`,
      flipped: 'fn',
      trueVerdict: verdict,
    };
  }
  if (!verdict.correct && u < cfg.pFp) {
    return {
      correct: true,
      components: { ...verdict.components, correctness: 1 },
      reason: `noisy verifier flipped a wrong answer to correct (false positive); truly: ${verdict.reason}`,
      flipped: 'fp',
      trueVerdict: verdict,
    };
  }
  return { ...verdict, flipped: null, trueVerdict: verdict };
}

export class NoisyVerifier {
  private readonly stream: Rng;
  constructor(
    private readonly family: Pick<TaskFamily, 'verify'>,
    readonly config: NoiseConfig,
    state?: RngState,
  ) {
    checkProb('pFn', config.pFn);
    checkProb('pFp', config.pFp);
    this.stream = state ? new Rng(state) : Rng.derive(config.seed, 'noisy-verifier');
  }

  verify(instance: TaskInstance, completion: string, opts?: VerifyOptions, key?: string | number): NoisyVerdict {
    const u = key === undefined ? this.stream.next() : Rng.derive(this.config.seed, 'noisy-verifier', key).next();
    return applyNoise(this.family.verify(instance, completion, opts), this.config, u);
  }

  /** Stream state, for checkpoints (keyed draws need none). */
  getState(): RngState {
    return this.stream.getState();
  }
}

export function makeNoisyVerifier(family: Pick<TaskFamily, 'verify'>, config: NoiseConfig): NoisyVerifier {
  return new NoisyVerifier(family, config);
}
