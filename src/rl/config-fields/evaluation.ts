// The run-config fields of the group "Evaluation and bookkeeping" (config-fields.ts: the whole table, and what is
// derived from it).
import type { FieldDecl } from './decl.ts';

const EVAL = 'Evaluation and bookkeeping' as const;

export const evaluationFields = {
  eval_every: {
    kind: 'int',
    default: 10,
    min: 0,
    max: 1e6,
    group: EVAL,
    help: 'held-out pass@k every N steps (0 = never)',
  },
  eval_prompts: {
    kind: 'int',
    default: 32,
    min: 1,
    max: 1024,
    group: EVAL,
    help: 'held-out prompts in each evaluation',
  },
  eval_samples: {
    kind: 'int',
    default: 0,
    min: 0,
    max: 64,
    group: EVAL,
    help: 'samples per held-out prompt (0 = num_generations); pass@k is reported for k up to this',
  },
  rollout_history_steps: {
    kind: 'int',
    default: 20,
    min: 1,
    max: 1000,
    group: EVAL,
    help: 'steps whose rollouts are kept in full for the inspector',
  },
} as const satisfies Record<string, FieldDecl>;
