/**
 * "Try the policy": a typed prompt, answered by a policy greedily and by sampling, with each token's
 * probability. The sampler is the one training uses (Policy.sample, KV-cache decode), on a fixed
 * batch of TRY_ROWS rows so one compiled decode graph serves every try.
 */
import type { Policy } from '../model/policy.ts';
import type { SamplingParams } from '../model/sampling.ts';
import type { TextCodec } from '../model/text-codec.ts';
import { TokenizeError } from '../model/tokenizer.ts';
import type { Verdict } from '../tasks/types.ts';
import { Rng } from '../util/rng.ts';

/** Rows of the decode batch every try uses (the most samples one try can ask for). */
export const TRY_ROWS = 8;

export interface TryOptions {
  /** Sampled completions per policy (0..TRY_ROWS). */
  samples: number;
  /** Temperature of the sampled completions (greedy ignores it). */
  temperature: number;
  /** Also decode greedily (the most likely token at each position). */
  greedy: boolean;
  /** Seeds the draws; base and current use the same stream, so their samples are comparable. */
  seed?: number;
}

export interface TriedToken {
  text: string;
  /**
   * Probability of this token when it was drawn: under temperature 1 for greedy, under the sampling temperature
   * otherwise.
   */
  p: number;
}

export interface TriedCompletion {
  text: string;
  tokens: TriedToken[];
  /** Hit the length cap without <eos>. */
  truncated: boolean;
  /** The task's verifier on this completion, when the prompt is one of the task's instances. */
  verdict: { correct: boolean; reason: string } | null;
}

export interface TriedPolicy {
  greedy: TriedCompletion | null;
  samples: TriedCompletion[];
}

export class TryPromptError extends Error {}

/** Checks the options; throws TryPromptError naming the bad one. */
export function checkTryOptions(o: TryOptions): Required<TryOptions> {
  if (!Number.isInteger(o.samples) || o.samples < 0 || o.samples > TRY_ROWS)
    throw new TryPromptError(`samples must be a whole number from 0 to ${TRY_ROWS}, got ${o.samples}`);
  if (!(typeof o.temperature === 'number' && o.temperature > 0 && o.temperature <= 10))
    throw new TryPromptError(`temperature must be a number above 0 and at most 10, got ${o.temperature}`);
  if (!o.greedy && o.samples === 0) throw new TryPromptError('ask for greedy decoding or at least one sample');
  return { samples: o.samples, temperature: o.temperature, greedy: !!o.greedy, seed: o.seed ?? 1 };
}

/**
 * Tokenizes a typed prompt; throws TryPromptError for characters outside the vocabulary or a prompt the layout cannot
 * hold.
 */
export function encodeTryPrompt(prompt: string, promptLen: number, codec: TextCodec): number[] {
  if (typeof prompt !== 'string' || prompt.length === 0) throw new TryPromptError('type a prompt first');
  let ids: number[];
  try {
    ids = codec.encodePrompt(prompt);
  } catch (e) {
    if (e instanceof TokenizeError)
      throw new TryPromptError(`${e.message}: the model reads printable ASCII and newline only`);
    throw e;
  }
  if (ids.length > promptLen) {
    throw new TryPromptError(
      `the prompt is ${ids.length} tokens, but this run's layout holds prompts of at most ${promptLen} ` +
        `tokens (sized for the task's longest prompt); shorten it`,
    );
  }
  return ids;
}

function completionOf(
  tokens: number[],
  logp: number[],
  truncated: boolean,
  verify: ((text: string) => Verdict) | null,
  codec: TextCodec,
): TriedCompletion {
  const text = codec.decode(tokens.filter((t) => !codec.stopTokens.has(t)));
  const v = verify ? verify(text) : null;
  return {
    text,
    tokens: tokens.map((t, i) => ({ text: codec.tokenText(t), p: Math.exp(logp[i]!) })),
    truncated,
    verdict: v ? { correct: v.correct, reason: v.reason } : null,
  };
}

/** Greedy and sampled completions of one prompt by the policy's current weights. */
export async function tryPolicy(
  policy: Policy,
  ids: number[],
  opts: Required<TryOptions>,
  maxNewTokens: number,
  verify: ((text: string) => Verdict) | null,
): Promise<TriedPolicy> {
  const rows = Array.from({ length: TRY_ROWS }, () => ids);
  let greedy: TriedCompletion | null = null;
  if (opts.greedy) {
    // top_k = 1 draws the most likely token; its reported log-prob is the full temperature-1 distribution's.
    const sp: SamplingParams = { temperature: 1, topK: 1, topP: 1 };
    const [c] = await policy.sample(rows, sp, maxNewTokens, new Rng(opts.seed));
    greedy = completionOf(c!.tokens, c!.logp, c!.truncated, verify, policy.codec);
  }
  let samples: TriedCompletion[] = [];
  if (opts.samples > 0) {
    const sp: SamplingParams = { temperature: opts.temperature, topK: 0, topP: 1 };
    const out = await policy.sample(rows, sp, maxNewTokens, new Rng(opts.seed));
    samples = out.slice(0, opts.samples).map((c) => completionOf(c.tokens, c.logp, c.truncated, verify, policy.codec));
  }
  return { greedy, samples };
}
