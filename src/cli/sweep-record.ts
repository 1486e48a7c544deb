/** `rlvr sweep --record-gain`: what the recipe measurably did, written into the base checkpoint's manifest. */
import { readFileSync, writeFileSync } from 'node:fs';
import type { RlGain } from '../model/checkpoint.ts';
import { shippedFor, writeShippedIndex } from './shipped.ts';
import type { SweepRow } from './sweep-grid.ts';

export function gainOf(rows: SweepRow[], preset: string, steps: number): RlGain {
  const rs = rows.filter((r) => r.preset === preset && r.steps === steps && r.sets.length === 0);
  if (!rs.length) throw new Error(`no finished ${preset} cells of ${steps} steps without grid values to record`);
  const mean = (f: (r: SweepRow) => number) => rs.reduce((a, r) => a + f(r), 0) / rs.length;
  return {
    preset,
    steps,
    seeds: rs.map((r) => r.seed),
    eval: rs[0]!.eval,
    temperature: rs[0]!.temperature ?? 1,
    pass_at_1_before: rs[0]!.pass_at_1_before,
    pass_at_1_after: mean((r) => r.pass_at_1_after),
    pass_at_1_after_min: Math.min(...rs.map((r) => r.pass_at_1_after)),
    pass_at_8_before: rs[0]!.pass_at_8_before,
    pass_at_8_after: mean((r) => r.pass_at_8_after),
    wall_time_s: mean((r) => r.wall_time_s),
  };
}

/** Writes rl_gain into the manifest (keeping every other field as it was); returns the manifest's path. */
export function recordGain(
  rows: SweepRow[],
  o: { preset: string; steps: number; task: string; modelPath?: string },
): string {
  const path = o.modelPath ?? shippedFor(o.task);
  const manifest = JSON.parse(readFileSync(path, 'utf8'));
  manifest.rl_gain = gainOf(rows, o.preset, o.steps);
  writeFileSync(path, JSON.stringify(manifest, null, 2) + '\n');
  writeShippedIndex();
  return path;
}
