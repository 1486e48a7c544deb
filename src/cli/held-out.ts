/** Held-out pass@k of a checkpoint file, as `rlvr eval` and `rlvr sweep` measure it. */
import type { Backend } from '../engine/backend.ts';
import { recipeTemperature, recommendedDifficulty, type Manifest } from '../model/checkpoint.ts';
import { layoutFor } from '../model/task-layout.ts';
import { evaluatePassAtK } from '../rl/evaluate.ts';
import { getTaskFamily } from '../tasks/registry.ts';
import { loadPolicy } from '../node/checkpoint-files.ts';

export interface HeldOutOptions {
  task: string;
  /** Knobs to override; the rest come from the checkpoint (recipe, else where it was measured), then the family. */
  difficulty?: Record<string, number | string>;
  prompts: number;
  n: number;
  ks: number[];
  seed: number;
  /** Sampling temperature; default: the checkpoint's recipe's (recipeTemperature). */
  temperature?: number;
  maxNewTokens?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface HeldOut {
  manifest: Manifest;
  difficulty: Record<string, number | string>;
  pass_at_k: Record<string, number>;
  temperature: number;
}

export async function heldOutPassAtK(manifestPath: string, backend: Backend, o: HeldOutOptions): Promise<HeldOut> {
  const { manifest, policy } = await loadPolicy(manifestPath, backend);
  try {
    const difficulty = {
      ...getTaskFamily(o.task).defaultDifficulty,
      ...(recommendedDifficulty(manifest, o.task) ?? {}),
      ...(o.difficulty ?? {}),
    };
    const needed = layoutFor([{ task: o.task, difficulty }], 8, 200, policy.codec);
    policy.setLayout({
      promptLen: Math.max(needed.promptLen, manifest.layout.promptLen),
      completionLen: manifest.layout.completionLen,
    });
    const temperature = o.temperature ?? recipeTemperature(manifest);
    const r = await evaluatePassAtK(policy, {
      task: o.task,
      difficulty,
      prompts: o.prompts,
      n: o.n,
      ks: o.ks,
      seed: o.seed,
      sampling: { temperature, topK: 0, topP: 1 },
      maxNewTokens: o.maxNewTokens ?? manifest.layout.completionLen,
      onProgress: o.onProgress,
    });
    return { manifest, difficulty, pass_at_k: r.pass_at_k, temperature };
  } finally {
    await policy.dispose();
  }
}
