/**
 * NeMo-RL's training data dump, as nemo_rl/algorithms/grpo.py writes it through
 * nemo_rl/utils/logger.py `log_batched_dict_as_jsonl`: one `train_data_step{N}.jsonl` per step (N from 1)
 * in the log directory, one line per sample, `json.dumps({**sample, "idx": i})` where the sample is a
 * batch of one, so every field is a list of one value:
 *   content: [[message text, ...]], rewards: [total], input_lengths: [L], token_ids: [[id, ...]] (padded),
 *   token_loss_mask: [[0|1, ...]], sample_loss_mask: [m], advantages: [[per token]],
 *   generation_logprobs: [[per token]] (the sampler's), prev_logprobs: [[per token]] (the trainer's),
 *   agent_ref?, filtered_rewards? (dynamic sampling: then `rewards` is the unfiltered total).
 * The completion is the last message; its tokens are those of the first L whose token_loss_mask is 1.
 * Samples of one prompt are consecutive (the batch is repeat_interleave'd), so groups are found by prompt.
 */
import { asText, isRecord, toNumber } from './files.ts';
import { type LineRow, numberList, type StepLinesFormat, tokenChannels } from './step-lines.ts';

export const nemoRlStepFile = /^train_data_step(\d+)\.jsonl$/;

/** Whether a parsed first line looks like NeMo-RL's dump. */
export const isNemoRlLine = (v: Record<string, unknown> | null): boolean =>
  v !== null && 'content' in v && 'token_ids' in v && 'rewards' in v;

const expected =
  'expected NeMo-RL\'s {"content": [[text, ...]], "rewards": [number], "input_lengths": [n], ' +
  '"token_ids": [[id, ...]], ' +
  '"token_loss_mask": [[0|1, ...]], ...} (nemo_rl/algorithms/grpo.py)';
const known = new Set([
  'content',
  'rewards',
  'input_lengths',
  'token_ids',
  'token_loss_mask',
  'advantages',
  'generation_logprobs',
  'prev_logprobs',
]);

/** A field the batch of one wraps: its single value. */
const single = (v: unknown): unknown => (Array.isArray(v) && v.length === 1 ? v[0] : undefined);

export function nemoRlFormat(tokenText?: (ids: number[]) => string[]): StepLinesFormat {
  return {
    format: 'nemo-rl',
    stepOf(path) {
      const m = nemoRlStepFile.exec(path);
      return m ? { step: Number(m[1]), order: 0 } : null;
    },
    rewardNamesOf: () => ['reward'],
    rowsOf(value): LineRow[] | string {
      if (!isRecord(value)) return `not an object; ${expected}`;
      const content = single(value.content);
      if (!Array.isArray(content) || content.length === 0)
        return `"content" is not a list of one message list; ${expected}`;
      const reward = toNumber(single(value.rewards));
      if (reward === undefined) return `"rewards" is not a list of one number; ${expected}`;
      const ids = numberList(single(value.token_ids));
      const mask = numberList(single(value.token_loss_mask));
      const length = toNumber(single(value.input_lengths));
      if (!ids || !mask || length === undefined)
        return `"token_ids", "token_loss_mask" or "input_lengths" is missing or not numbers; ${expected}`;
      const advantages = numberList(single(value.advantages));
      const sampler = numberList(single(value.generation_logprobs));
      const trainer = numberList(single(value.prev_logprobs));
      const at: number[] = [];
      for (let i = 0; i < Math.min(length, ids.length, mask.length); i++) if (mask[i]) at.push(i);
      const pick = (xs: number[] | undefined) => (xs ? at.map((i) => xs[i] ?? Number.NaN) : undefined);
      const tokenAdvantages = pick(advantages);
      const logprobs = pick(sampler);
      const newLogprobs = pick(trainer);
      const extra: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) if (!known.has(k)) extra[k] = single(v) ?? v;
      const completion: LineRow['completion'] = {
        prompt: content.slice(0, -1).map(asText).join('\n'),
        completion: asText(content[content.length - 1]),
        rewards: { reward },
        reward,
        // GRPO gives every token of a sample the same advantage; the first completion token's is shown.
        ...(tokenAdvantages?.length ? { advantage: tokenAdvantages[0]! } : {}),
        length: at.length,
        lengthUnit: 'tokens',
        tokens: tokenChannels(
          at.map((i) => ids[i]!),
          tokenText,
          {
            ...(logprobs ? { logprobs } : {}),
            ...(newLogprobs ? { newLogprobs } : {}),
            ...(tokenAdvantages ? { advantages: tokenAdvantages } : {}),
          },
        ),
        extra,
      };
      return [{ completion }];
    },
    notes: [
      "NeMo-RL: the total reward is `rewards`; each token's sampler log-prob is `generation_logprobs`, the trainer's " +
        '`prev_logprobs`; the completion is the last message and its tokens those with token_loss_mask 1.',
    ],
  };
}
