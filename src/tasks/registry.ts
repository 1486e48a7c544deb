/** The task families by id. `custom` verifies any custom instance; generating one needs makeCustomFamily. */
import { arithmetic } from './families/arithmetic.ts';
import { chain } from './families/chain.ts';
import { countdown } from './families/countdown.ts';
import { customFamily } from './families/custom.ts';
import { sat } from './families/sat.ts';
import { sort } from './families/sort.ts';
import { sudoku } from './families/sudoku.ts';
import type { TaskFamily } from './types.ts';

export const taskFamilies: readonly TaskFamily[] = [arithmetic, countdown, sat, sudoku, sort, chain, customFamily];

export const taskIds: readonly string[] = taskFamilies.map((f) => f.id);

export function getTaskFamily(id: string): TaskFamily {
  const f = taskFamilies.find((t) => t.id === id);
  if (!f) throw new Error(`unknown task "${id}" (known: ${taskIds.join(', ')})`);
  return f;
}
