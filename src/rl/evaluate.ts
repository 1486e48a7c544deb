import type { Policy } from '../model/policy.ts';
import type { SamplingParams } from '../model/sampling.ts';
import { getTaskFamily } from '../tasks/registry.ts';
import type { Difficulty } from '../tasks/types.ts';
import { Rng } from '../util/rng.ts';
import { meanPassAtK } from './passk.ts';

export interface EvalOptions {
  task: string;
  difficulty?: Partial<Difficulty>;
  prompts: number;
  n: number;
  ks: number[];
  seed: number;
  sampling?: SamplingParams;
  maxNewTokens?: number;
  /** Rows per sampling batch. */
  batchRows?: number;
  onProgress?: (done: number, total: number) => void;
  /** Asked before each sampling batch: true stops the evaluation (it rejects with EvalCancelled). */
  /**
   * Awaited after each sampling batch. A worker passes a macrotask yield: ONNX Runtime Web's WASM
   * session runs without returning to the event loop, so without it the page's status pings and Cancel
   * wait for the whole evaluation (and src/ui/state/watchdog.ts declares a busy worker dead).
   */
  betweenBatches?: () => Promise<void>;
  cancelled?: () => boolean;
}

/** An evaluation stopped on request (EvalOptions.cancelled). */
export class EvalCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'EvalCancelled';
  }
}

export interface EvalResult {
  task: string;
  prompts: number;
  n: number;
  pass_at_k: Record<string, number>;
  /** Correct samples per prompt. */
  correct: number[];
}

/** Held-out prompts are instance seeds 0..P-1; training draws from other ranges. */
export const heldOutSeed = (i: number) => i;

/** Samples n completions for each of P held-out prompts and estimates pass@k without bias. */
export async function evaluatePassAtK(policy: Policy, o: EvalOptions): Promise<EvalResult> {
  const fam = getTaskFamily(o.task);
  const instances = Array.from({ length: o.prompts }, (_, i) => fam.generate(heldOutSeed(i), o.difficulty));
  const jobs: number[] = [];
  for (let p = 0; p < o.prompts; p++) for (let j = 0; j < o.n; j++) jobs.push(p);
  const batch = o.batchRows ?? 64;
  const correct = new Array<number>(o.prompts).fill(0);
  const rng = new Rng(o.seed);
  const sp = o.sampling ?? { temperature: 1, topK: 0, topP: 1 };
  for (let start = 0; start < jobs.length; start += batch) {
    if (o.cancelled?.()) throw new EvalCancelled();
    const slice = jobs.slice(start, start + batch);
    // Pad the last batch to the same row count so the decode graph is reused.
    const rows = [...slice, ...new Array<number>(batch - slice.length).fill(slice[0]!)];
    const comps = await policy.sample(
      rows.map((p) => policy.codec.encodePrompt(instances[p]!.prompt)),
      sp,
      o.maxNewTokens ?? policy.layout.completionLen,
      rng,
    );
    slice.forEach((p, r) => {
      if (fam.verify(instances[p]!, policy.codec.decode(comps[r]!.tokens)).correct) correct[p]!++;
    });
    o.onProgress?.(Math.min(start + batch, jobs.length), jobs.length);
    await o.betweenBatches?.();
  }
  return { task: o.task, prompts: o.prompts, n: o.n, pass_at_k: meanPassAtK(correct, o.n, o.ks), correct };
}
