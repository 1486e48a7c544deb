// The run-config fields of the group "Run" (config-fields.ts: the whole table, and what is derived from it).
import type { FieldDecl } from './decl.ts';

const RUN = 'Run' as const;

export const runFields = {
  version: { kind: 'int', default: 1, min: 1, max: 1, group: RUN, help: 'config format version', ownControl: true },
  task: {
    kind: 'str',
    default: 'sat',
    group: RUN,
    help: 'task family id (rlvr tasks lists them)',
    restart: true,
    ownControl: true,
  },
  difficulty: {
    kind: 'record',
    default: {},
    group: RUN,
    help: "the task family's difficulty knobs (unset: the checkpoint's measured difficulty)",
    ownControl: true,
  },
  seed: {
    kind: 'int',
    default: 0,
    min: 0,
    max: 2 ** 31 - 1,
    group: RUN,
    restart: true,
    help: 'seeds prompts, sampling and noise: same seed + config + backend gives the same run',
  },
} as const satisfies Record<string, FieldDecl>;
