import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../src/engine/backend-node.ts';
import { TRY_ROWS } from '../src/rl/try-prompt.ts';
import { loadTrainingDataset, maxPromptTokens } from '../src/tasks/dataset-load.ts';
import { bindCustomFamily, getTaskFamily } from '../src/tasks/registry.ts';
import type { InitRequest } from './protocol.ts';
import { TrainingSession } from './training-session.ts';

const request: InitRequest = {
  config: {
    task: 'arithmetic',
    difficulty: { digits: 1, ops: '+' },
    prompts_per_step: 2,
    num_generations: 4,
    max_completion_length: 12,
    eval_every: 0,
    seed: 5,
  },
  checkpoint: { kind: 'fresh', model: 'nano', seed: 3 },
  backend: null,
};

const newSession = () =>
  new TrainingSession({
    createBackend: async () => createNodeBackend(1),
    fetchBytes: async () => new Uint8Array(),
    flushMs: 1,
  });

const JSONL = [
  '{"prompt": "2+2=", "answer": "4"}',
  '{"prompt": "3+4=", "answer": 7}',
  'not json',
  '{"prompt": "caf\u00e9?", "answer": "x"}',
  '{"prompt": "9-5=", "answer": "4"}',
].join('\n');

describe('loadTrainingDataset (the page and the worker run the same checks)', () => {
  it('reports bad lines by number, skips them, and refuses a file with no usable line', () => {
    const d = loadTrainingDataset({ name: 'mine.jsonl', text: JSONL, verifier: { kind: 'exact' } });
    expect(d.dataset.records.map((r) => r.line)).toEqual([1, 2, 5]);
    expect(d.dataset.errors.map((e) => e.line)).toEqual([3, 4]);
    expect(d.dataset.errors[0]!.reason).toMatch(/not valid JSON/);
    expect(d.dataset.errors[1]!.reason).toMatch(/"é".*not in the model's vocabulary/);
    expect(() =>
      loadTrainingDataset({ name: 'bad.jsonl', text: 'nope\n{"prompt": 1}', verifier: { kind: 'exact' } }),
    ).toThrow(/line 1: not valid JSON.*line 2: missing "prompt"/);
    expect(() => loadTrainingDataset({ name: 'x.jsonl', text: JSONL, verifier: { kind: 'fuzzy' as 'exact' } })).toThrow(
      /verifier must be one of exact, numeric, regex/,
    );
  });

  it('the layout room matches the prompt grid (prompt + 2, rounded up to 8)', () => {
    expect(maxPromptTokens(128, 48)).toBe(78); // roundUp8(78 + 2) = 80 = 128 - 48
    expect(maxPromptTokens(128, 50)).toBe(70);
  });
});

describe('TrainingSession: try the policy and train on a dataset (onnxruntime-node)', () => {
  it('tryPrompt answers greedily and by sampling for base and current, with probabilities in (0, 1]', async () => {
    const s = newSession();
    await s.init(request);
    await s.stepOnce();
    const r = await s.tryPrompt({ prompt: '3+5=', samples: 3, temperature: 1, greedy: true });
    expect(r.step).toBe(1);
    expect(r.promptTokens).toBe(4);
    for (const side of [r.base, r.current]) {
      expect(side.samples).toHaveLength(3);
      for (const c of [side.greedy!, ...side.samples]) {
        expect(c.tokens.length).toBeGreaterThan(0);
        for (const t of c.tokens) expect(t.p > 0 && t.p <= 1).toBe(true);
      }
    }
    // Greedy is deterministic: the same try gives the same greedy completion.
    const again = await s.tryPrompt({ prompt: '3+5=', samples: 0, temperature: 1, greedy: true });
    expect(again.current.greedy!.text).toBe(r.current.greedy!.text);
    expect(again.base.greedy!.text).toBe(r.base.greedy!.text);
    // A held-out prompt of the task is recognised and judged.
    const heldOut = getTaskFamily('arithmetic').generate(0, { digits: 1, ops: '+' });
    const judged = await s.tryPrompt({ prompt: heldOut.prompt, samples: 1, temperature: 1, greedy: true });
    expect(judged.instance?.where).toBe('held-out prompt 1');
    expect(judged.current.greedy!.verdict?.reason).toBeTruthy();
    await expect(s.tryPrompt({ prompt: 'caf\u00e9', samples: 1, temperature: 1, greedy: true })).rejects.toThrow(
      /"é".*not in the vocabulary/,
    );
    await expect(s.tryPrompt({ prompt: '1+'.repeat(40), samples: 1, temperature: 1, greedy: true })).rejects.toThrow(
      /80 tokens.*at most \d+ tokens/,
    );
    await expect(s.tryPrompt({ prompt: '1+1=', samples: TRY_ROWS + 1, temperature: 1, greedy: true })).rejects.toThrow(
      /samples must be/,
    );
    // The weights the run trains are back in place: the next step is the run's second update.
    expect((await s.stepOnce()).step).toBe(2);
  });

  it('trains on an imported dataset: prompts come from its lines; a bad dataset leaves the run as it was', async () => {
    const s = newSession();
    const custom: InitRequest = {
      ...request,
      config: { ...request.config, task: 'custom', difficulty: {} },
      dataset: { name: 'mine.jsonl', text: JSONL, verifier: { kind: 'exact' } },
    };
    const init = await s.init(custom);
    expect(init.config.task).toBe('custom');
    for (let i = 0; i < 2; i++) await s.stepOnce();
    const prompts = new Set(s.getRollouts(1)!.records.map((r) => r.prompt));
    for (const p of prompts) expect(['2+2=', '3+4=', '9-5=']).toContain(p);
    const judged = await s.tryPrompt({ prompt: '3+4=', samples: 0, temperature: 1, greedy: true });
    expect(judged.instance?.where).toBe('line 2 of the dataset');
    // The snapshot carries the dataset, so a resumed run trains on the same lines.
    const snap = await s.snapshot();
    expect(snap.dataset?.name).toBe('mine.jsonl');
    // Too long for the layout: refused by line number, and the current run keeps going on its dataset.
    const long = `{"prompt": "${'1'.repeat(120)}", "answer": "1"}`;
    await expect(
      s.init({ ...custom, dataset: { name: 'long.jsonl', text: `${long}\n${JSONL}`, verifier: { kind: 'exact' } } }),
    ).rejects.toThrow(/line 1: prompt is 120 tokens/);
    await expect(s.init({ ...custom, dataset: undefined })).rejects.toThrow(/import one first/);
    expect((await s.stepOnce()).step).toBe(3);
    expect(s.getRollouts(3)!.records.every((r) => ['2+2=', '3+4=', '9-5='].includes(r.prompt))).toBe(true);
    const resumed = newSession();
    expect((await resumed.init({ ...custom, dataset: undefined, restore: snap })).step).toBe(2);
    bindCustomFamily(null);
  });
});
