import { defaultAdamW } from '../engine/optimizer.ts';
import { getTaskFamily } from '../tasks/registry.ts';
import type { Difficulty } from '../tasks/types.ts';
import { buildSftGraph } from './graphs.ts';
import { pack } from './layout.ts';
import type { Policy } from './policy.ts';
import { charCodec, type TextCodec } from './text-codec.ts';

export interface PretrainMixEntry {
  task: string;
  difficulty?: Partial<Difficulty>;
  weight?: number;
}

export interface PretrainOptions {
  mix: PretrainMixEntry[];
  steps: number;
  batchSize: number;
  lr: number;
  /** Linear warm-up then cosine decay to 10% of lr. */
  warmupSteps: number;
  seed: number;
  onStep?: (step: number, loss: number) => void | Promise<void>;
}

export function lrAt(step: number, total: number, lr: number, warmup: number): number {
  if (step < warmup) return (lr * (step + 1)) / warmup;
  const t = (step - warmup) / Math.max(1, total - warmup);
  return lr * (0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * t)));
}

/** The supervised example for one generated instance: prompt tokens and reference completion + EOS. */
export function sftExample(
  task: string,
  seed: number,
  difficulty?: Partial<Difficulty>,
  codec: TextCodec = charCodec,
): { prompt: number[]; completion: number[] } {
  const inst = getTaskFamily(task).generate(seed, difficulty);
  return {
    prompt: codec.encodePrompt(inst.prompt),
    completion: [...codec.encodeContinuation(inst.reference), codec.eos],
  };
}

/**
 * The warm start's draw for row `r` of step `step`: which mixture entry, and the instance seed (a
 * range disjoint from the held-out evaluation seeds).
 */
export function mixtureDraw(
  o: Pick<PretrainOptions, 'mix' | 'batchSize' | 'seed'>,
  step: number,
  r: number,
): { entry: PretrainMixEntry; seed: number } {
  const weights = o.mix.map((m) => m.weight ?? 1);
  const totalW = weights.reduce((a, b) => a + b, 0);
  const seed = 1_000_000 + o.seed * 7_919 + step * o.batchSize + r;
  let u = (((seed * 2654435761) >>> 0) / 4294967296) * totalW;
  let k = 0;
  while (u >= weights[k]! && k < weights.length - 1) u -= weights[k++]!;
  return { entry: o.mix[k]!, seed };
}

/** The text the warm start trains on, one prompt + reference completion per row (a tokenizer can be trained on it). */
export function* mixtureTexts(o: Pick<PretrainOptions, 'mix' | 'batchSize' | 'seed' | 'steps'>): Generator<string> {
  for (let step = 0; step < o.steps; step++)
    for (let r = 0; r < o.batchSize; r++) {
      const { entry, seed } = mixtureDraw(o, step, r);
      const inst = getTaskFamily(entry.task).generate(seed, entry.difficulty);
      yield inst.prompt + inst.reference;
    }
}

/**
 * Supervised warm start on reference solutions from the task generators (RL from a random model
 * gets no reward). Instance seeds are drawn from a range disjoint from the held-out evaluation seeds.
 */
export async function pretrain(policy: Policy, o: PretrainOptions): Promise<number[]> {
  const len = policy.layout.promptLen + policy.layout.completionLen;
  const losses: number[] = [];
  for (let step = 0; step < o.steps; step++) {
    const prompts: number[][] = [];
    const completions: number[][] = [];
    for (let r = 0; r < o.batchSize; r++) {
      const { entry, seed } = mixtureDraw(o, step, r);
      const ex = sftExample(entry.task, seed, entry.difficulty, policy.codec);
      prompts.push(ex.prompt);
      completions.push(ex.completion);
    }
    const b = pack(policy.layout, prompts, completions);
    const res = await policy.train(
      `sft:${b.rows}x${len}`,
      () => buildSftGraph(policy.config, b.rows, len, { ...defaultAdamW, weightDecay: 0.01 }),
      {
        ...policy.packedFeeds(b, 1),
        completion_mask: policy.backend.tensor('float32', b.completionMask, [b.rows, len]),
      },
      lrAt(step, o.steps, o.lr, o.warmupSteps),
    );
    losses.push(res.loss);
    await o.onStep?.(step, res.loss);
  }
  return losses;
}
