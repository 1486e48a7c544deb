/**
 * The worker side of "Try the policy": the typed prompt answered by the current weights and by the
 * base weights (swapped in and back, as the pass@k explorer does), plus the verifier's verdict when
 * the prompt is one of the task's own prompts (a held-out prompt, an early training prompt, or a
 * line of the loaded dataset). Called inside the session's `exclusive`, between training steps.
 */
import type { Policy, Weights } from '../src/model/policy.ts';
import { heldOutSeed } from '../src/rl/evaluate.ts';
import { trainSeed } from '../src/rl/trainer.ts';
import { checkTryOptions, encodeTryPrompt, tryPolicy } from '../src/rl/try-prompt.ts';
import type { LoadedDataset } from '../src/tasks/dataset-load.ts';
import { customInstance } from '../src/tasks/families/custom.ts';
import { getTaskFamily } from '../src/tasks/registry.ts';
import type { TaskInstance } from '../src/tasks/types.ts';
import type { RunConfig, TryRequest, TryResult } from './protocol.ts';

/** Seeds searched for an instance whose prompt is the typed one (held-out 0..N-1, and the first N training prompts). */
const MATCH_PROBE = 256;

export function findInstance(
  c: RunConfig,
  difficulty: Record<string, number | string>,
  prompt: string,
  dataset: LoadedDataset | null,
): { instance: TaskInstance; where: string } | null {
  if (dataset) {
    const rec = dataset.dataset.records.find((r) => r.prompt === prompt);
    return rec ? { instance: customInstance(rec, dataset.verifier), where: `line ${rec.line} of the dataset` } : null;
  }
  const family = getTaskFamily(c.task);
  for (let i = 0; i < MATCH_PROBE; i++) {
    for (const [seed, where] of [
      // Counted from 1, as the guide names its example ("held-out prompt 1", src/ui/components/guide/Guide.tsx).
      [heldOutSeed(i), `held-out prompt ${i + 1}`],
      [trainSeed(c.seed, i), `training prompt ${i + 1}`],
    ] as const) {
      try {
        const inst = family.generate(seed, difficulty);
        if (inst.prompt === prompt) return { instance: inst, where };
      } catch {
        return null; // a difficulty the family refuses (a ladder level): no match rather than an error
      }
    }
  }
  return null;
}

export interface TryContext {
  policy: Policy;
  baseWeights: Weights;
  config: RunConfig;
  difficulty: Record<string, number | string>;
  step: number;
  dataset: LoadedDataset | null;
}

export async function tryPromptOn(x: TryContext, req: TryRequest): Promise<TryResult> {
  const t0 = performance.now();
  const opts = checkTryOptions({
    samples: req.samples,
    temperature: req.temperature,
    greedy: req.greedy,
    seed: x.config.seed,
  });
  const ids = encodeTryPrompt(req.prompt, x.policy.layout.promptLen, x.policy.codec);
  const match = findInstance(x.config, x.difficulty, req.prompt, x.dataset);
  const family = getTaskFamily(x.config.task);
  const verify = match ? (text: string) => family.verify(match.instance, text) : null;
  const maxNew = Math.min(x.config.max_completion_length, x.policy.layout.completionLen);
  const current = await tryPolicy(x.policy, ids, opts, maxNew, verify);
  const weights = await x.policy.getWeights();
  const optimizer = await x.policy.getOptimizerState();
  x.policy.setWeights(x.baseWeights);
  let base;
  try {
    base = await tryPolicy(x.policy, ids, opts, maxNew, verify);
  } finally {
    x.policy.setWeights(weights, optimizer);
  }
  return {
    prompt: req.prompt,
    promptTokens: ids.length,
    promptLen: x.policy.layout.promptLen,
    step: x.step,
    base,
    current,
    instance: match ? { reference: match.instance.reference, where: match.where } : null,
    seconds: (performance.now() - t0) / 1000,
  };
}
