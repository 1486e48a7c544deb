import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evaluationDue, freshBase, loadBase } from './run.ts';
import { resolveOrThrow } from './resolve-config.ts';

/** The user's choices over the checkpoint's recipe, through the one resolver. */
const resolveUser = (user: Record<string, unknown>, manifest: Parameters<typeof resolveOrThrow>[0]['manifest']) =>
  resolveOrThrow({ manifest, layers: [{ source: { kind: 'edited' }, values: user }] });

describe('the run pipeline (src/rl/run.ts)', () => {
  it('one evaluation rule: step 0, every eval_every steps, the end of a budget; eval_every 0 never', () => {
    const due = (every: number, budget: number, upTo: number) =>
      Array.from({ length: upTo + 1 }, (_, s) => s).filter((s) => evaluationDue(every, s, budget));
    expect(due(4, 10, 10)).toEqual([0, 4, 8, 10]);
    expect(due(5, 10, 10)).toEqual([0, 5, 10]);
    expect(due(3, 0, 10)).toEqual([0, 3, 6, 9]); // no budget: no end
    expect(due(0, 10, 10)).toEqual([]);
  });

  it('loads a base from manifest JSON and weight bytes, and names what is wrong', () => {
    const dir = 'public/checkpoints/sat-tiny';
    const manifest = JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8'));
    const bytes = new Uint8Array(readFileSync(`${dir}/model.safetensors`));
    const base = loadBase(manifest, bytes);
    expect(base.manifest.name).toBe('sat-tiny');
    expect(base.weights.size).toBeGreaterThan(0);
    expect(() => loadBase({ ...manifest, format: 'nope' }, bytes)).toThrow(/format/);
    expect(() => loadBase(manifest, bytes.slice(0, 100))).toThrow();
    // The checkpoint's recipe applies under the user's choices: its difficulty unless the user sets a knob.
    expect(resolveUser({ task: 'sat' }, base.manifest).difficulty).toMatchObject({ n: 5, m: 6 });
    expect(resolveUser({ task: 'sat', difficulty: { m: 4 } }, base.manifest).difficulty).toMatchObject({ n: 5, m: 4 });
  });

  it('a fresh base is sized for the task and says it was never trained', () => {
    const b = freshBase('nano', 3, 'arithmetic', { digits: 1, ops: '+' });
    expect(b.manifest.tasks).toEqual([]);
    expect(b.manifest.training.steps).toBe(0);
    expect(b.weights.size).toBeGreaterThan(0);
  });
});
