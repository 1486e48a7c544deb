// The shipped base checkpoints: which one a family starts from, and what its recipe was measured to do.
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { taskIds } from '../tasks/registry.ts';
import { defaultCheckpointFor } from '../ui/state/setup-state.ts';
import type { ShippedCheckpoint } from '../ui/state/store.ts';
import { shippedFor, shippedManifests } from './shipped.ts';

const families = taskIds.filter((id) => id !== 'custom');
const index = JSON.parse(readFileSync('public/checkpoints/index.json', 'utf8')) as {
  id: string;
  manifest: string;
  tasks: string[];
}[];

describe('shipped base checkpoints', () => {
  it('each family starts from the same checkpoint in the CLI and in the page', () => {
    const page: ShippedCheckpoint[] = shippedManifests().map(({ path, manifest }) => ({
      id: basename(dirname(path)),
      manifestPath: path,
      tasks: manifest.tasks.map((t) => t.task),
      manifest,
    }));
    for (const task of families)
      expect(defaultCheckpointFor(task, page), task).toBe(basename(dirname(shippedFor(task))));
    // The page reads index.json: it lists the same folders, in the same order.
    expect(index.map((e) => e.id)).toEqual(page.map((c) => c.id));
  });

  // The goal for RL on every family: with its recipe, 200 steps of GRPO lift held-out pass@1
  // at least 15 points on every measured seed (scripts/measure-recipes.sh writes rl_gain).
  it(
    "each family's default checkpoint gains at least +15 points of held-out pass@1 on every seed with its " + 'recipe',
    () => {
      for (const task of families) {
        const m = JSON.parse(readFileSync(shippedFor(task), 'utf8')) as {
          name: string;
          rl_gain?: { seeds: number[]; steps: number; pass_at_1_before: number; pass_at_1_after_min: number };
        };
        expect(m.rl_gain, `${m.name}: measured (scripts/measure-recipes.sh ${task})`).toBeDefined();
        const g = m.rl_gain!;
        expect(g.seeds.length, m.name).toBeGreaterThanOrEqual(3);
        expect(g.steps, m.name).toBe(200);
        expect(
          g.pass_at_1_after_min - g.pass_at_1_before,
          `${m.name}: smallest gain over seeds ${g.seeds.join(', ')}`,
        ).toBeGreaterThanOrEqual(0.15);
      }
    },
  );
});
