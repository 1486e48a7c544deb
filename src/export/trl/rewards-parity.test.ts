// The Python reward functions of the TRL export (rewards.py, standard library only, run by Debian's
// python3) against the TypeScript verifiers and reward shaping: 2,000 completions per family
// (references, perturbed references, junk), each judged strictly and by the leaky verifier, must get
// the same reward and components bit for bit. Every generated .py file must compile.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encode, EOS } from '../../model/tokenizer.ts';
import { validateConfig } from '../../rl/config.ts';
import { heldOutSeed } from '../../rl/evaluate.ts';
import { isTokenizable } from '../../tasks/format.ts';
import { shapeReward } from '../../tasks/reward.ts';
import { getTaskFamily } from '../../tasks/registry.ts';
import type { TaskFamily, TaskInstance } from '../../tasks/types.ts';
import { Rng } from '../../util/rng.ts';
import { writeTrlExport } from './export.ts';
import { portedFamilies } from './python-sources.ts';

const PER_FAMILY = 2000;
// Debian's interpreter when it is there (no packages beyond the standard library); $PYTHON overrides.
const python = process.env.PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
const root = mkdtempSync(join(tmpdir(), 'rlvr-trl-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Separators and look-alikes where JavaScript and Python disagree (\s, \d, trimming, code units).
const TRICKY = [
  ' ',
  ',',
  '\t',
  '\n',
  '\r',
  '\u000b',
  '\u000c',
  '\u00a0',
  '\u1680',
  '\u2003',
  '\u2028',
  '\u202f',
  '\u3000',
  '\ufeff',
  '\u001c',
  '\u001f',
  '\u0085',
  '\u200b',
  '/',
  '|',
  ';',
  '_',
  '-',
  '=',
  '.',
  '+',
  '*',
  '(',
  ')',
  '٣',
  '３',
  '²',
  'é',
  '😀',
  '\ud800',
  '\udfff',
  '<',
  '>',
];
const TAGS = ['<think>', '</think>', '<answer>', '</answer>'];
const ALPHABET = [...'0123456789abcdefghijklmnopqrstuvwxyz ABCXYZ=+-*/()<>,;:.|?!\n', ...TRICKY, ...TAGS];

function junk(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += rng.pick(ALPHABET);
  return s;
}

function replaceAt(s: string, at: number, len: number, by: string): string {
  return s.slice(0, at) + by + s.slice(at + len);
}

/** Splits a completion in the default format into its think and answer bodies. */
function bodies(ref: string): { think: string; answer: string } {
  const m = /^<think>([\s\S]*)<\/think><answer>([\s\S]*)<\/answer>$/.exec(ref);
  return m ? { think: m[1]!, answer: m[2]! } : { think: '', answer: ref };
}

const mutations: ((s: string, rng: Rng, inst: TaskInstance, other: TaskInstance) => string)[] = [
  // a digit changed or two characters swapped
  (s, rng) => {
    const digits = [...s].map((c, i) => (c >= '0' && c <= '9' ? i : -1)).filter((i) => i >= 0);
    if (!digits.length) return s;
    const i = rng.pick(digits);
    return replaceAt(s, i, 1, String(rng.int(0, 9)));
  },
  (s, rng) => {
    if (s.length < 2) return s;
    const i = rng.int(0, s.length - 2);
    return s.slice(0, i) + s[i + 1] + s[i] + s.slice(i + 2);
  },
  // a tag dropped, duplicated or misspelt
  (s, rng) => {
    const t = rng.pick(TAGS);
    return s.replace(t, rng.pick(['', t + t, t.toUpperCase(), t.slice(0, -1), ' ']));
  },
  // truncated
  (s, rng) => s.slice(0, rng.int(0, s.length)),
  // extra text before, after or inside
  (s, rng) => {
    const extra = junk(rng, rng.int(1, 6));
    const where = rng.int(0, 2);
    return where === 0 ? extra + s : where === 1 ? s + extra : replaceAt(s, rng.int(0, s.length), 0, extra);
  },
  // the answer body rewritten: another instance's answer, separators, signs, zeros, target suffixes
  (s, rng, inst, other) => {
    const { think } = bodies(s);
    const a = inst.answer;
    const sep = rng.pick(TRICKY);
    const variants = [
      other.answer,
      [...a].join(sep),
      a.split(' ').join(sep),
      `${sep}${a}${sep}`,
      `-${a}`,
      `00${a}`,
      `-00${a}`,
      `${a}=${(inst.data as { target?: number }).target ?? 0}`,
      a.replace(/[0-9]/, (d) => String.fromCharCode(0x0660 + Number(d))),
      a + a,
      a
        .split(/[\s,]+/)
        .reverse()
        .join(' '),
      a.slice(0, -1),
      a.replace(/ /g, ',  '),
      '',
      '1'.repeat(rng.int(1, 30)),
      '9'.repeat(rng.int(10, 20)),
      a + '.0',
      `(${a})`,
      '0'.repeat(rng.int(1, 30)),
      `${a}\n_`,
      `${a}\n,`,
      // astral characters: one code point, two UTF-16 code units
      `${a} 😀`,
      `😀 ${a}`,
      `ab ${a.split(' ').join(' 😀 ')}`,
      '😀'.repeat(rng.int(95, 105)),
    ];
    return `<think>${think}</think><answer>${rng.pick(variants)}</answer>`;
  },
  // the thinking part rewritten (chain's partial credit reads it)
  (s, rng) => {
    const { think, answer } = bodies(s);
    const t = rng.pick([
      think.replace(/=(\d)/g, (_, d) => `=${rng.int(0, 9)}${d}`),
      think.replace(/,/g, ' '),
      think.replace(/=/g, '=-'),
      `a=${rng.int(-9, 999)},${think}`,
      think.toUpperCase(),
      `xa=1,${think}`,
      think.replace(/(\d+)/g, '0000$1'),
    ]);
    return `<think>${t}</think><answer>${answer}</answer>`;
  },
  // whitespace around the whole completion, trimmed or not
  (s, rng) => rng.pick(['  ', '\n', '\t', '\r\n', '\u00a0', '\ufeff']) + s + rng.pick(['', ' ', '\n\n', '\u2028']),
  // too long: the completion, the answer, the expression
  (s, rng) =>
    rng.int(0, 1)
      ? s + ' '.repeat(Math.max(1, 4097 - s.length))
      : s.replace('</answer>', '0'.repeat(rng.int(190, 210)) + '</answer>'),
  // at most 4096 code points but more than 4096 UTF-16 code units
  (s, rng) => s + '😀'.repeat(Math.max(1, 4096 - s.length - rng.int(0, 2))),
  // tags in the wrong order
  (s) => {
    const { think, answer } = bodies(s);
    return `<answer>${answer}</answer><think>${think}</think>`;
  },
  (s) => (bodies(s).answer ? `<answer>${bodies(s).answer}</answer>` : s),
];

function completionsFor(fam: TaskFamily, instances: TaskInstance[], rng: Rng): { inst: TaskInstance; text: string }[] {
  const out: { inst: TaskInstance; text: string }[] = [];
  for (let k = 0; k < PER_FAMILY; k++) {
    const inst = instances[k % instances.length]!;
    const other = instances[rng.int(0, instances.length - 1)]!;
    const kind = k % 10;
    let text: string;
    if (kind === 0) text = inst.reference;
    else if (kind === 1) text = fam.solve(inst);
    else if (kind === 2) text = junk(rng, rng.int(0, 60));
    else if (kind === 3)
      text = `<think>${junk(rng, rng.int(0, 20))}</think><answer>${junk(rng, rng.int(0, 20))}</answer>`;
    else {
      text = rng.int(0, 3) ? inst.reference : fam.solve(inst);
      for (let m = rng.int(1, 3); m > 0; m--) text = rng.pick(mutations)(text, rng, inst, other);
    }
    out.push({ inst, text });
  }
  return out;
}

interface PyScore {
  reward: number;
  components: { correctness: number; format: number; partial: number; overlong: number; length: number };
  raw: { correctness: number; format: number; partial?: number };
  correct: boolean;
}

function runPython(args: string[], input: string, cwd: string): string {
  const r = spawnSync(python, args, { input, cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw new Error(`cannot run ${python} (Debian's python3 is needed for this test): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${python} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

describe.each(portedFamilies.map((f) => [f]))('TRL export: %s', (task) => {
  const fam = getTaskFamily(task);
  // Non-default weights and the overlong penalty on, so every component and term is exercised.
  const config = validateConfig({
    task,
    seed: 3,
    reward_weights: { correctness: 0.7, format: 0.2, partial: 0.3 },
    overlong_penalty: true,
    overlong_cache_length: 8,
    max_completion_length: 48,
  });
  const dir = join(root, task);
  const result = writeTrlExport(config, {}, dir, 40);

  it('writes files that python3 -m py_compile accepts, and prompts disjoint from the held-out seeds', () => {
    expect(result.files).toEqual([
      'train_grpo.py',
      'rewards.py',
      'trl_record.py',
      'rlvr_record.py',
      'run_config.json',
      'prompts.jsonl',
      'README.md',
    ]);
    for (const f of result.files.filter((f) => f.endsWith('.py')))
      runPython(['-m', 'py_compile', join(dir, f)], '', dir);
    const rows = readFileSync(join(dir, 'prompts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { prompt: string; data: string; seed: number; reference: string });
    expect(rows).toHaveLength(40);
    const heldOut = new Set(Array.from({ length: 1024 }, (_, i) => heldOutSeed(i)));
    for (const r of rows) {
      expect(heldOut.has(r.seed)).toBe(false);
      const inst = fam.generate(r.seed, result.difficulty);
      expect(r.prompt).toBe(inst.prompt);
      expect(JSON.parse(r.data)).toEqual(inst.data);
    }
    expect(new Set(rows.map((r) => r.seed)).size).toBe(40);
    const script = readFileSync(join(dir, 'train_grpo.py'), 'utf8');
    for (const line of [
      'num_generations=8,',
      'learning_rate=0.0001,',
      'loss_type="grpo",',
      'scale_rewards="group",',
      'epsilon_high=0.2,',
      'delta=None,',
      'seed=3,',
      'generation_batch_size=batch,',
    ])
      expect(script).toContain(line);
    expect(script).toMatch(/#\s+entropy_coef = 0: not passed: TRL 1\.13's entropy_coef/);
  });

  it(
    `gives the same rewards and components as the TypeScript verifier on ${PER_FAMILY} completions, strict ` +
      'and leaky',
    () => {
      const rng = Rng.derive(7, 'trl-parity', task);
      const instances = fam.levels.flatMap((level, li) =>
        Array.from({ length: 12 }, (_, s) => fam.generate(1000 * li + s + 1, level)),
      );
      const cases = completionsFor(fam, instances, rng).flatMap((c) =>
        [false, true].map((leaky) => ({ ...c, leaky, length: rng.int(0, 60) })),
      );
      const input =
        cases
          .map((c) =>
            JSON.stringify({ completion: c.text, data: c.inst.data, leaky: c.leaky, completion_length: c.length }),
          )
          .join('\n') + '\n';
      const lines = runPython([join(dir, 'rewards.py')], input, dir)
        .trim()
        .split('\n');
      expect(lines).toHaveLength(cases.length);
      const mismatches: string[] = [];
      let correct = 0;
      let wellFormed = 0;
      cases.forEach((c, i) => {
        const py = JSON.parse(lines[i]!) as PyScore;
        const verdict = c.leaky ? fam.leakyVerify!(c.inst, c.text) : fam.verify(c.inst, c.text);
        const ts = shapeReward(verdict, {
          weights: config.reward_weights,
          overlong: { enabled: true, cacheLength: 8, penalty: 1 },
          completionLength: c.length,
          maxLength: 48,
        });
        const want = { reward: ts.total, components: ts.components, raw: verdict.components, correct: verdict.correct };
        const same =
          Object.is(py.reward, want.reward) &&
          py.correct === want.correct &&
          (['correctness', 'format', 'partial', 'overlong', 'length'] as const).every((k) =>
            Object.is(py.components[k], want.components[k]),
          ) &&
          JSON.stringify(Object.entries(py.raw).sort()) === JSON.stringify(Object.entries(want.raw).sort());
        if (!same)
          mismatches.push(
            `${JSON.stringify(c.text)} (leaky ${c.leaky}): python ${lines[i]} typescript ${JSON.stringify(want)}`,
          );
        if (verdict.correct) correct++;
        if (verdict.components.format === 1) wellFormed++;
      });
      expect(mismatches.slice(0, 5)).toEqual([]);
      expect(mismatches.length).toBe(0);
      // The set is not degenerate: right, wrong, well-formed and malformed completions all occur.
      expect(correct).toBeGreaterThan(cases.length * 0.1);
      expect(correct).toBeLessThan(cases.length * 0.9);
      expect(wellFormed).toBeGreaterThan(cases.length * 0.2);
      expect(wellFormed).toBeLessThan(cases.length * 0.9);
    },
  );

  it(
    "TRL's reward functions, called as GRPOTrainer calls them (token ids, dataset columns), add up to the " +
      'same reward',
    () => {
      const rng = Rng.derive(8, 'trl-funcs', task);
      const instances = Array.from({ length: 20 }, (_, s) => fam.generate(s + 1, fam.levels[s % fam.levels.length]));
      const cases = completionsFor(fam, instances, rng)
        .filter((c) => isTokenizable(c.text))
        .slice(0, 300);
      expect(cases.length).toBeGreaterThan(200);
      const ids = cases.map((c) => [...encode(c.text), EOS]);
      const call = [
        'import json, sys',
        'import rewards',
        'batch = json.load(sys.stdin)',
        'per_func = [f(prompts=batch["prompts"], completions=["(ignored: decoded from ids)"] * ' +
          'len(batch["ids"]), completion_ids=batch["ids"], data=batch["data"], trainer_state=None) for f in ' +
          'rewards.REWARD_FUNCS]',
        'totals = [sum(w * r[i] for w, r in zip(rewards.TRL_REWARD_WEIGHTS, per_func)) for i in ' +
          'range(len(batch["ids"]))]',
        'print(json.dumps(totals))',
      ].join('\n');
      const batch = {
        prompts: cases.map((c) => c.inst.prompt),
        ids,
        data: cases.map((c) => JSON.stringify(c.inst.data)),
      };
      const totals = JSON.parse(runPython(['-c', call], JSON.stringify(batch), dir)) as number[];
      const want = cases.map(
        (c, i) =>
          shapeReward(fam.verify(c.inst, c.text), {
            weights: config.reward_weights,
            overlong: { enabled: true, cacheLength: 8, penalty: 1 },
            completionLength: ids[i]!.length,
            maxLength: 48,
          }).total,
      );
      expect(totals).toHaveLength(want.length);
      const diffs = totals
        .map((t, i) => (t === want[i] ? null : `${JSON.stringify(cases[i]!.text)}: python ${t}, typescript ${want[i]}`))
        .filter(Boolean);
      expect(diffs).toEqual([]);
    },
  );
});
