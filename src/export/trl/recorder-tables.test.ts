// The Python recorder (python/rlvr_playground/trainer.py) takes its per-loss-type tables from
// src/rl/loss-types.ts through record_settings.py (written by scripts/python-record-settings.mjs): for
// every loss type TRL has, its per-token loss weights equal aggregationWeights here, and its clipped
// objective is written for exactly the "clip" form. A loss type added to the table with an existing
// aggregation needs nothing in Python; one the recorder does not know is said, not silently NaN.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { aggregationWeights } from '../../rl/advantages.ts';
import { type LossTypeName, lossTypes } from '../../rl/loss-types.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const PYTHON = process.env.TRL_PYTHON ?? join(ROOT, '.venv-py/bin/python');
const haveTrl = existsSync(PYTHON);

const MASKS = [
  [1, 1, 0, 0],
  [1, 1, 1, 0],
  [1, 0, 0, 0],
];
const MAX_COMPLETION_LENGTH = 4;

// A fake trainer (only what _loss_weights reads), one micro-batch per optimizer step on one process;
// "new_sequence_sum" stands for a loss type added to src/rl/loss-types.ts after this recorder was written.
const CODE = `
import json, sys, warnings
from types import SimpleNamespace
sys.path.insert(0, "python")
import torch
from rlvr_playground import record_settings
record_settings.LOSS_AGGREGATIONS["new_sequence_sum"] = "sequence-sum"
from rlvr_playground.trainer import RecordingGRPOTrainer, CLIP_LOSSES
mask = torch.tensor(json.loads(sys.argv[1]), dtype=torch.float32)
out = {}
for lt in [*record_settings.LOSS_AGGREGATIONS, "not_a_loss_type"]:
    fake = SimpleNamespace(loss_type=lt, current_gradient_accumulation_steps=1, max_completion_length=int(sys.argv[2]),
                           accelerator=SimpleNamespace(num_processes=1), args=SimpleNamespace(steps_per_generation=1))
    w = RecordingGRPOTrainer._loss_weights(fake, {"num_items_in_batch": mask.sum()}, mask)
    out[lt] = [[None if x != x else x for x in row] for row in w.double().tolist()]
print(json.dumps({"weights": out, "clip": list(CLIP_LOSSES)}))
`;

describe("the Python recorder's loss-type tables", () => {
  it.skipIf(!haveTrl)(
    `${haveTrl ? '' : 'SKIPPED (no .venv-py with TRL): '}per-token weights equal aggregationWeights for every TRL ` +
      'loss type, and a loss type added to the table gets its weights with no Python change',
    () => {
      const r = spawnSync(PYTHON, ['-c', CODE, JSON.stringify(MASKS), String(MAX_COMPLETION_LENGTH)], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, OMP_NUM_THREADS: '1' },
      });
      expect(r.status, r.stderr).toBe(0);
      const got = JSON.parse(r.stdout) as { weights: Record<string, (number | null)[][]>; clip: string[] };
      const tokens = MASKS.flat().reduce((a, b) => a + b, 0);
      const named = (Object.keys(lossTypes) as LossTypeName[]).filter((k) => lossTypes[k].trl === true);
      expect(Object.keys(got.weights).sort()).toEqual([...named, 'new_sequence_sum', 'not_a_loss_type'].sort());
      for (const lt of named) {
        const ours = aggregationWeights(MASKS, lt, MAX_COMPLETION_LENGTH, tokens);
        got.weights[lt]!.forEach((row, i) =>
          row.forEach((w, t) => expect(w, `${lt} [${i}][${t}]`).toBeCloseTo(ours[i]![t]!, 7)),
        );
      }
      const luspo = aggregationWeights(MASKS, 'luspo', MAX_COMPLETION_LENGTH, tokens);
      expect(got.weights.new_sequence_sum).toEqual(luspo.map((row) => row.map((w) => expect.closeTo(w, 7))));
      // an unknown loss type's weights are NaN (and said when the trainer is made), never a made-up number
      const unmasked = MASKS.flat().filter((m) => m === 1).length;
      expect(got.weights.not_a_loss_type!.flat().filter((_w, i) => MASKS.flat()[i] === 1)).toEqual(
        Array(unmasked).fill(null),
      );
      expect(got.clip.sort()).toEqual(named.filter((k) => lossTypes[k].form === 'clip').sort());
    },
    120_000,
  );
});
