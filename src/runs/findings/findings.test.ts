/**
 * The findings (docs/findings.md) on a documented-JSONL run with each kind planted at known steps and rows
 * (src/runs/findings/planted.ts): each plant is found exactly there, and only it; the clean run gives none.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRun } from '../detect.ts';
import { memoryRunFiles } from '../memory-files.ts';
import type { OpenedRun } from '../types.ts';
import { findRunFindings } from './find.ts';
import { plantedExpectations, plantedJsonl } from './planted.ts';
import { type Finding, type FindingKind, findingKinds } from './types.ts';

const open = (text: string): Promise<OpenedRun> =>
  openRun(memoryRunFiles('planted', { 'rollouts.jsonl': text }), {
    path: 'rollouts.jsonl',
    name: 'planted',
    format: 'jsonl',
  });

const where = (f: Finding) => ({
  kind: f.kind,
  step: f.step,
  ...(f.steps ? { steps: f.steps } : {}),
  group: f.group,
  rows: f.rows,
});
const byPlace = (a: { step: number; group: number | null }, b: { step: number; group: number | null }) =>
  a.step - b.step || (a.group ?? -1) - (b.group ?? -1);

describe('findings on planted runs', () => {
  it('the clean run gives no finding of any kind', async () => {
    const run = await open(plantedJsonl());
    expect(run.index.problems).toEqual([]);
    const result = await findRunFindings(run);
    expect(result.findings).toEqual([]);
    expect(result.stepsRead).toBe(12);
  });

  it.each(findingKinds)(
    '%s: found exactly where it was planted, with a sentence naming its threshold',
    async (kind) => {
      const run = await open(plantedJsonl([kind]));
      expect(run.index.problems).toEqual([]);
      const { findings } = await findRunFindings(run);
      const found = findings.filter((f) => f.kind === kind);
      expect(found.map(where).sort(byPlace)).toEqual([...plantedExpectations[kind]].sort(byPlace));
      for (const f of found) {
        expect(f.run).toBe('planted');
        expect(f.score).toBeGreaterThan(0);
        expect(f.text).toMatch(/flagged (at|when|below)/);
      }
    },
  );

  it('every plant at once: each is still found where it was planted', async () => {
    const { findings } = await findRunFindings(await open(plantedJsonl(findingKinds)));
    for (const kind of findingKinds) {
      const found = findings.filter((f) => f.kind === kind).map(where);
      for (const expected of plantedExpectations[kind]) expect(found).toContainEqual(expected);
    }
    // Sorted by score, highest first.
    expect(findings.map((f) => f.score)).toEqual([...findings.map((f) => f.score)].sort((a, b) => b - a));
  });

  it('the committed planted fixture is this run with every plant (e2e/findings.spec.mjs opens it)', () => {
    const fixture = readFileSync(join(__dirname, '..', 'fixtures', 'planted-findings.jsonl'), 'utf8');
    expect(fixture).toBe(plantedJsonl(findingKinds));
  });

  it('stops between steps when aborted, and says so', async () => {
    const run = await open(plantedJsonl(findingKinds));
    const abort = new AbortController();
    const result = await findRunFindings(run, {
      signal: abort.signal,
      onProgress: (p) => {
        if (p.done === 3) abort.abort();
      },
    });
    expect(result).toMatchObject({ cancelled: true, stepsRead: 3, findings: [] });
  });
});

describe('kinds filter', () => {
  it('only the kinds asked for are judged', async () => {
    const run = await open(plantedJsonl(findingKinds));
    const only: FindingKind[] = ['truncation', 'nonfinite'];
    const { findings } = await findRunFindings(run, { kinds: only });
    expect(new Set(findings.map((f) => f.kind))).toEqual(new Set(only));
  });
});

describe('reward_hacking: a format reward saturating while correctness stays low', () => {
  it('flags the late steps, pointing at the completions right in format only', async () => {
    // 8 steps of 2 groups of 4: "format" climbs to its maximum; "correct" rises a little (by more than the
    // flat threshold) but stays in the lowest fifth of its range: 1 of 8 right in the last two steps.
    const lines: string[] = [];
    for (let step = 1; step <= 8; step++)
      for (let row = 0; row < 8; row++) {
        const correct = step >= 7 && row === 0 ? 1 : 0;
        const format = Math.min(1, (step - 1) / 4);
        const prompt = `q${step}-${row >> 2}`;
        lines.push(JSON.stringify({ step, prompt, completion: `c${row}`, rewards: { correct, format } }));
      }
    const { findings } = await findRunFindings(await open(`${lines.join('\n')}\n`), { kinds: ['reward_hacking'] });
    expect(findings.map(where)).toEqual(
      [7, 8].map((step) => ({
        kind: 'reward_hacking',
        step,
        group: null,
        rows: [1, 2, 3, 4, 5, 6, 7],
      })),
    );
    expect(findings[0]!.text).toContain('"format" saturated at 1 of its max 1 while "correct" stayed low at 0.125');
  });
});
