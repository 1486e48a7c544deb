import type { Backend } from '../engine/backend.ts';
import { modelPresets } from './config.ts';
import { Policy, Rng } from './policy.ts';
import { pretrain } from './pretrain.ts';
import { encode } from './tokenizer.ts';
import { initParams } from './transformer.ts';

/** Sampler vs scorer on the same completions: largest differences in per-token log-prob and entropy. */
export interface Parity {
  rows: number;
  tokens: number;
  /** Length of the longest completion. */
  longest: number;
  maxLogpDiff: number;
  maxEntropyDiff: number;
  /** Sampling with the same seed twice gave the same tokens. */
  reproducible: boolean;
  /** Keys of the sessions the policy compiled (the prompt pass runs once per distinct prompt). */
  sessions: string[];
}

/**
 * The KV-cache sampler's per-token log-probs and entropies against the full-recompute scoring graph,
 * on one backend: a briefly trained nano policy (so the distributions are not flat), 8 rows laid out
 * two ways.
 * Shared by the Node unit test and the browser harness, so every backend runs the same check.
 */
export async function samplerScorerParity(backend: Backend): Promise<Parity> {
  const cfg = modelPresets.nano;
  const policy = await Policy.create(backend, cfg, { promptLen: 24, completionLen: 40 }, initParams(cfg, 5));
  try {
    await pretrain(policy, {
      mix: [{ task: 'arithmetic', difficulty: { digits: 2 } }],
      steps: 5,
      batchSize: 8,
      lr: 3e-3,
      warmupSteps: 1,
      seed: 1,
    });
    const prompts = ['12+34=', '7*8=', 'sat 3: 1 2|-1 3', 'asc: 5 3 9 1'].map(encode);
    const sp = { temperature: 0.8, topK: 0, topP: 1 };
    let maxLogpDiff = 0;
    let maxEntropyDiff = 0;
    let reproducible = true;
    let tokens = 0;
    let longest = 0;
    // Each prompt twice, interleaved (every row its own prompt pass) and in groups (one pass per prompt,
    // its keys and values read once per group, as in a GRPO batch).
    const layouts = [[...prompts, ...prompts], prompts.flatMap((p) => [p, p])];
    for (const rows of layouts) {
      const comps = await policy.sample(rows, sp, 30, new Rng(3));
      const scores = await policy.score(
        rows,
        comps.map((c) => c.tokens),
        0.8,
      );
      comps.forEach((c, r) =>
        c.logp.forEach((lp, i) => (maxLogpDiff = Math.max(maxLogpDiff, Math.abs(lp - scores.logp[r]![i]!)))),
      );
      comps.forEach((c, r) =>
        c.entropy.forEach((h, i) => (maxEntropyDiff = Math.max(maxEntropyDiff, Math.abs(h - scores.entropy[r]![i]!)))),
      );
      const again = await policy.sample(rows, sp, 30, new Rng(3));
      reproducible &&= JSON.stringify(again.map((c) => c.tokens)) === JSON.stringify(comps.map((c) => c.tokens));
      tokens += comps.reduce((a, c) => a + c.tokens.length, 0);
      longest = Math.max(longest, ...comps.map((c) => c.tokens.length));
    }
    return {
      sessions: policy.compiledSessions,
      rows: layouts[0]!.length,
      tokens,
      longest,
      maxLogpDiff,
      maxEntropyDiff,
      reproducible,
    };
  } finally {
    await policy.dispose();
  }
}
