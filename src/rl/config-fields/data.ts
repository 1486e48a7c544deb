// The run-config fields of the group "Data and reward" (config-fields.ts: the whole table, and what is derived from
// it).
import type { FieldDecl } from './decl.ts';

const DATA = 'Data and reward' as const;

export const dataFields = {
  dynamic_sampling: {
    kind: 'bool',
    default: false,
    group: DATA,
    paper: 'DAPO (Yu et al., 2025)',
    help: 'drop groups whose rewards are all equal and refill the batch',
  },
  max_refill_rounds: {
    kind: 'int',
    default: 2,
    min: 0,
    max: 20,
    group: DATA,
    help: 'extra sampling rounds allowed to refill a batch',
  },
  hints: {
    kind: 'bool',
    default: false,
    group: DATA,
    paper: 'Guide / SEELE hints',
    help: 'when a whole group fails, retry it with a prefix of the reference solution forced',
  },
  hint_fraction: {
    kind: 'num',
    default: 0.5,
    min: 0,
    max: 1,
    group: DATA,
    help: 'fraction of the reference solution given as the hint',
  },
  reward_weights: {
    kind: 'weights',
    default: { correctness: 0.9, format: 0.1, partial: 0 },
    min: -10,
    max: 10,
    group: DATA,
    trl: true,
    help: 'weights of the reward components',
    parts: {
      correctness: { trl: true, help: 'weight of the correctness component (1 when the answer is right)' },
      format: {
        trl: true,
        paper: 'DeepSeek-R1; TinyZero',
        help: 'weight of the format component (1 when <think>…</think><answer>…</answer> is followed)',
      },
      partial: { help: 'weight of partial credit (cells right, clauses satisfied…)' },
    },
  },
  overlong_penalty: {
    kind: 'bool',
    default: false,
    group: DATA,
    paper: 'DAPO (Yu et al., 2025)',
    help: 'soft penalty in a window before the length cap',
  },
  overlong_cache_length: {
    kind: 'int',
    default: 8,
    min: 0,
    max: 512,
    group: DATA,
    help: 'width of the overlong window, in tokens',
  },
  noise_p_fn: {
    kind: 'num',
    default: 0,
    min: 0,
    max: 1,
    group: DATA,
    paper: 'Noisy verifiers (Cai et al., 2025)',
    help: 'noisy verifier: probability a correct answer is judged wrong',
  },
  noise_p_fp: {
    kind: 'num',
    default: 0,
    min: 0,
    max: 1,
    group: DATA,
    paper: 'Noisy verifiers (Cai et al., 2025)',
    help: 'noisy verifier: probability a wrong answer is judged right',
  },
  leaky_verifier: {
    kind: 'bool',
    default: false,
    group: DATA,
    help: 'use the family’s deliberately lenient verifier (reward-hacking lesson)',
  },
  reward_source: {
    kind: 'enum',
    default: 'verifier',
    values: ['verifier', 'rlpr', 'mix'],
    group: DATA,
    paper: 'RLPR (Yu et al., 2025)',
    help: 'verifier, rlpr (the policy’s own probability of the reference answer), or a mix',
  },
  rlpr_weight: { kind: 'num', default: 0.5, min: 0, max: 1, group: DATA, help: 'weight of the RLPR reward in the mix' },
} as const satisfies Record<string, FieldDecl>;
