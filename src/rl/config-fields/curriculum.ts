// The run-config fields of the group "Curriculum" (config-fields.ts: the whole table, and what is derived from it).
import type { FieldDecl } from './decl.ts';

const CURR = 'Curriculum' as const;

export const curriculumFields = {
  curriculum: {
    kind: 'enum',
    default: 'fixed',
    values: ['fixed', 'ladder'],
    group: CURR,
    restart: true,
    paper: 'SATURN (Liu et al., 2025)',
    help: 'fixed difficulty, or an easy-to-hard ladder that advances on pass@1',
  },
  ladder_start: {
    kind: 'int',
    default: 0,
    min: 0,
    max: 100,
    group: CURR,
    restart: true,
    help: 'the ladder level a run starts at (0 = the easiest; see rlvr tasks for the levels)',
  },
  ladder_window: {
    kind: 'int',
    default: 10,
    min: 1,
    max: 1000,
    group: CURR,
    help: 'steps pooled before the ladder moves',
  },
  ladder_advance_at: {
    kind: 'num',
    default: 0.7,
    min: 0,
    max: 1,
    group: CURR,
    help: 'move up a level when pooled pass@1 reaches this',
  },
  ladder_step_back_at: {
    kind: 'num',
    default: 0.1,
    min: 0,
    max: 1,
    group: CURR,
    help: 'move down when pooled pass@1 falls below this',
  },
} as const satisfies Record<string, FieldDecl>;
