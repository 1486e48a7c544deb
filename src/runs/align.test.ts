// Two runs aligned on their shared prompts (align.ts): on two arms of a shipped lesson recording (the same
// seed, so the same prompts at each step), on the TRL fixture beside a veRL dump that sampled some of its
// prompts at other steps (written as veRL writes it: verl-fixture.ts follows
// verl/trainer/ppo/ray_trainer.py `_dump_generations`), and on the live run's records (recordedStep).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunRecord } from '../record/reader.ts';
import { alignSteps, promptKey, recordedStep, stepToAlign } from './align.ts';
import { openRun } from './detect.ts';
import { memoryRunFiles } from './memory-files.ts';
import type { RunFiles } from './types.ts';
import { verlDumpGenerations } from './verl-fixture.ts';

const root = join(import.meta.dirname, '..', '..');
const lesson = join(root, 'public', 'records', 'lessons', 'forking-tokens', 'seed-11');
const recordFiles = (name: string): RunFiles =>
  memoryRunFiles('arm', { [name]: new Uint8Array(readFileSync(join(lesson, name))) });
const openRecord = (name: string) => openRun(recordFiles(name), { path: name, name, format: 'record' });

function trlFiles(): RunFiles {
  const dir = join(import.meta.dirname, 'fixtures', 'trl-tiny');
  const files: Record<string, Uint8Array> = {};
  for (const f of [
    'checkpoint-2/trainer_state.json',
    ...[1, 2, 3].map((i) => `completions/completions_0000${i}.parquet`),
  ])
    files[`trl-tiny/${f}`] = new Uint8Array(readFileSync(join(dir, f)));
  return memoryRunFiles('served', files);
}

describe('two runs aligned on shared prompts', () => {
  it("puts two arms' completions of each prompt side by side, at the same step", async () => {
    const a = await openRecord('random_20_.rlvr.gz');
    const b = await openRecord('top_20_entropy.rlvr.gz');
    const step = a.index.steps[2]!;
    expect(stepToAlign(b.index.steps, step)).toBe(step);
    const [sa, sb] = [await a.readStep(step), await b.readStep(step)];
    const aligned = alignSteps(sa, sb);
    const promptsA = new Set(sa.groups.map((g) => g.prompt));
    expect(aligned.shared.length).toBe(promptsA.size);
    expect(aligned.onlyA + aligned.onlyB).toBe(0);
    for (const p of aligned.shared) {
      const ga = sa.groups.filter((g) => g.prompt === p.prompt).flatMap((g) => g.completions);
      const gb = sb.groups.filter((g) => g.prompt === p.prompt).flatMap((g) => g.completions);
      expect(p.a.completions.map((c) => [c.row, c.completion, c.reward])).toEqual(
        ga.sort((x, y) => x.row - y.row).map((c) => [c.row, c.completion, c.reward]),
      );
      expect(p.b.completions.map((c) => c.reward)).toEqual(gb.sort((x, y) => x.row - y.row).map((c) => c.reward));
    }
  });

  it('aligns a TRL run with a veRL dump at the nearest step, on the prompts both sampled', async () => {
    const trl = await openRun(trlFiles(), { path: 'trl-tiny', name: 'trl-tiny', format: 'trl' });
    const first = await trl.readStep(trl.index.steps[0]!);
    const prompts = [...new Set(first.groups.map((g) => g.prompt))];
    expect(prompts.length).toBeGreaterThan(1);
    // veRL at steps 5 and 9: its step 5 holds TRL's first prompt (with other white space) and one of its own.
    const inputs = [
      `  ${prompts[0]!.replace(/ /g, '  ')}\n`,
      `  ${prompts[0]!.replace(/ /g, '  ')}\n`,
      'elsewhere',
      'elsewhere',
    ];
    const files: Record<string, string> = {};
    for (const step of [5, 9]) {
      const d = verlDumpGenerations({ step, inputs, outputs: ['a', 'b', 'c', 'd'], gts: null, scores: [1, 0, 0.5, 0] });
      files[`dump/${d.name}`] = d.text;
    }
    const verl = await openRun(memoryRunFiles('v', files), { path: 'dump', name: 'dump', format: 'verl' });
    const stepB = stepToAlign(verl.index.steps, first.step)!;
    expect(stepB).toBe(5);
    const aligned = alignSteps(first, await verl.readStep(stepB));
    expect(aligned.shared.map((p) => p.prompt)).toEqual([prompts[0]]);
    expect(aligned.shared[0]!.b.completions.map((c) => [c.completion, c.reward])).toEqual([
      ['a', 1],
      ['b', 0],
    ]);
    expect(aligned.shared[0]!.b.mean).toBe(0.5);
    expect([aligned.onlyA, aligned.onlyB]).toEqual([prompts.length - 1, 1]);
    expect(promptKey(' a \n b ')).toBe('a b');
  });

  it("takes the live run's inspected records as a step of the same shape as the record reader's", async () => {
    const name = 'all_tokens.rlvr.gz';
    const { record } = await readRunRecord(new Uint8Array(readFileSync(join(lesson, name))));
    const run = await openRecord(name);
    const step = run.index.steps[1]!;
    const records = record.rollouts.filter((r) => r.step === step).flatMap((r) => r.records);
    const live = recordedStep(step, records);
    const read = await run.readStep(step);
    const shape = (s: typeof read) => s.groups.map((g) => [g.prompt, g.completions.map((c) => [c.row, c.reward])]);
    expect(shape(live)).toEqual(shape(read));
    expect(alignSteps(live, read).shared.length).toBe(new Set(read.groups.map((g) => g.prompt)).size);
  });
});
