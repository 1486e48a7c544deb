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

/**
 * The custom family built from the dataset this process trains on (one per worker, one per CLI run).
 * Everything that looks a family up by id (the trainer, the layout probe, the held-out evaluation,
 * the recipe check) then draws from that dataset; null goes back to the family that cannot generate.
 */
let boundCustom: TaskFamily | null = null;

export function bindCustomFamily(family: TaskFamily | null): void {
  if (family && family.id !== 'custom')
    throw new Error(`bindCustomFamily: expected the custom family, got "${family.id}"`);
  boundCustom = family;
}

export function getTaskFamily(id: string): TaskFamily {
  if (id === 'custom' && boundCustom) return boundCustom;
  const f = taskFamilies.find((t) => t.id === id);
  if (!f) throw new Error(`unknown task "${id}" (known: ${taskIds.join(', ')})`);
  return f;
}
