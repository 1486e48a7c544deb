// The figure reader of `npm run test:bench-quick` (scripts/bench-figures.ts): a finite figure passes; NaN,
// Infinity, undefined, null and the reports' "—" fail; a line or table the script no longer prints fails. The
// demo lines are what `node scripts/measure-demo.mjs --steps 4 --query eval_every=2` printed at 9693fc4, and the
// verdict over runs what `--quick --runs 2` printed at a09e631; the
// table rows are those of `rlvr bench` (bench/report.ts, bench/llama-report.ts) on this machine.
import { describe, expect, it } from 'vitest';
import { figureProblems, segmentProblem } from '../../scripts/bench-figures.ts';
import { QUICK_FORMS } from '../../scripts/bench-quick-forms.ts';

const DEMO = [
  '   5 s  step    0  held-out pass@1 0.259 ± 0.027  (+0.0 points)',
  '  11 s  step    2  held-out pass@1 0.322 ± 0.030  (+6.3 points)',
  'profile: 3 steps in 14 s: 1.498 s/step (sampling 1.4 s, update 3.1 s, verify 0 s); 9.2 s outside steps ' +
    '(held-out evaluations, start-up)',
  'sustained +20 points (3 evaluations in a row) not reached in 3 steps (14 s); best 0.322 at step 2 (base 0.259)',
  'largest standard error of one point: 0.030',
  'demo over 2 runs: median not reached to a sustained +20 points (goal 60 s: NOT MET); runs not reached, not ' +
    'reached; load average 2.3 to 2.8',
].join('\n');

const form = (name: string) => QUICK_FORMS.find((f) => f.name.startsWith(name))!.figures;

const BENCH = [
  '| preset | engine | sampling tok/s | update tok/s | step s |',
  '|---|---|---|---|---|',
  '| tiny (0.21M) | onnxruntime-node 1.30.0 CPU, 2 threads | 13,093 (13,093–13,093) | 9,900 (9,900–9,900) ' +
    '| 0.78 (0.78–0.78) |',
  '| tiny (0.21M) | Chromium WASM EP, 2 threads | 6,168 (6,168–6,168) | 4,578 (4,578–4,578) | 0.64 (0.64–0.64) |',
  '',
  '| engine | sampling tok/s | GRPO update s | update peak RSS MiB | sampling vs PyTorch | update speed vs PyTorch ' +
    '| update peak memory vs PyTorch |',
  '|---|---|---|---|---|---|---|',
  '| onnxruntime-node 1.30.0 CPU, 2 threads | 9.61 | 5.20 | 1,617 | 12.5× | 7.83× | 0.93× |',
  '| PyTorch 2.13.0+cpu + PEFT 0.21.0 eager CPU, 2 threads | 0.77 | 40.7 | 1,732 |  |  |  |',
].join('\n');

const TABLES = {
  tables: [form('rlvr bench, tiny').tables![0]!, form('rlvr bench, smollm2').tables![0]!],
};

describe('the figures a measurement script prints (scripts/bench-figures.ts)', () => {
  it('takes finite figures in the forms the scripts print them', () => {
    for (const s of ['0.259', '+6.3', '-0.5', '21,039 (13,575–41,741)', '1.3e-5, 2.8e-9 OK', '10.40× ✓', '705 ms'])
      expect(segmentProblem(s), s).toBeNull();
  });

  it('refuses NaN, Infinity, undefined, null, the reports\' "—" and "n/a", no figure, and a missing part', () => {
    for (const s of ['NaN', '-Infinity', 'Infinity ms', 'undefined', 'null', '—', '0.5 (NaN–0.7)', 'n/a (n/a–n/a)'])
      expect(segmentProblem(s), s).toMatch(/not a finite number/);
    expect(segmentProblem('fast')).toMatch(/holds no figure/);
    expect(segmentProblem(undefined)).toBe('missing');
  });

  it("passes the demo's printed lines, and names the line whose figure is not finite", () => {
    expect(figureProblems(DEMO, form('bench:demo'))).toEqual([]);
    const bad = DEMO.replace('1.498 s/step', 'NaN s/step');
    expect(figureProblems(bad, form('bench:demo'))).toEqual([
      'the profile, output line 3: "NaN" holds NaN, not a finite number',
    ]);
    const undef = DEMO.replace('best 0.322', 'best undefined');
    expect(figureProblems(undef, form('bench:demo'))).toEqual([
      'the verdict, output line 4: "undefined" holds undefined, not a finite number',
    ]);
  });

  it('fails when a line is missing, or printed fewer times than the quick form prints it', () => {
    const noProfile = DEMO.split('\n')
      .filter((l) => !l.startsWith('profile:'))
      .join('\n');
    expect(figureProblems(noProfile, form('bench:demo'))).toEqual([
      expect.stringMatching(/^the profile: 0 line\(s\) matching .* printed, 1 expected$/),
    ]);
    const oneEval = DEMO.split('\n')
      .filter((l) => !l.includes('step    2'))
      .join('\n');
    expect(figureProblems(oneEval, form('bench:demo'))).toEqual([
      expect.stringMatching(/^an evaluation: 1 line\(s\) matching .* printed, 2 expected$/),
    ]);
    expect(figureProblems('', form('bench:demo'))).toHaveLength(5);
  });

  it("reads rlvr bench's tables: empty ratio cells of the peer's row pass, a missing figure or table fails", () => {
    expect(figureProblems(BENCH, TABLES)).toEqual([]);
    const dash = BENCH.replace('| 9.61 | 5.20 |', '| — | 5.20 |');
    expect(figureProblems(dash, TABLES)).toEqual([
      'the smollm2-135m preset, output line 8, column "sampling tok/s": "—" holds —, not a finite number',
    ]);
    const empty = BENCH.replace('| 0.77 | 40.7 |', '|  | 40.7 |');
    expect(figureProblems(empty, TABLES)).toEqual([
      'the smollm2-135m preset, output line 9, column "sampling tok/s": missing',
    ]);
    const noLlama = BENCH.split('\n').slice(0, 4).join('\n');
    expect(figureProblems(noLlama, TABLES)).toEqual([
      expect.stringMatching(/^the smollm2-135m preset: no table with a header matching/),
    ]);
  });
});
