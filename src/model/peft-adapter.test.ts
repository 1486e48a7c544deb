// LoRA adapters against the real PEFT 0.21 (scripts/peft_lora_fixture.py): we read what PEFT's
// save_pretrained writes and give its log-probs; PEFT's PeftModel.from_pretrained reads what we write
// and gives ours (both within 1e-4). Needs .venv-py with peft (scripts/setup-python.sh); without it the
// test says so loudly and is skipped, never passed.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Graph } from '../engine/graph.ts';
import { evaluate, nd, type NDArray } from '../engine/reference.ts';
import { Rng } from '../util/rng.ts';
import type { ModelConfig } from './config.ts';
import { llamaConfigOf, llamaWeightsFrom, readWeightFiles } from './hf-import-llama.ts';
import { adapterFiles, readAdapter } from './peft-adapter.ts';
import type { Weights } from './policy.ts';
import { forward, paramSpecs, type Params } from './transformer.ts';

const root = resolve(import.meta.dirname, '..', '..');
const py = join(root, '.venv-py', 'bin', 'python');
const hasPeft = spawnSync(py, ['-c', 'import peft, transformers'], { env: process.env }).status === 0;
const env = { ...process.env, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', OMP_NUM_THREADS: '1' };

/** Each row's per-token log-probs (first null), float64 reference interpreter. */
function ourLogprobs(c: ModelConfig, w: Weights, rows: number[][]): (number | null)[][] {
  return rows.map((ids) => {
    const t = ids.length;
    const g = new Graph({ forwardOnly: true });
    const p: Params = {};
    const feeds: Record<string, NDArray> = {};
    for (const s of paramSpecs(c)) {
      p[s.name] = g.input(s.name, 'float32', s.shape);
      feeds[s.name] = nd(s.shape, w.get(s.name)!);
    }
    g.output(
      g.logSoftmax(
        forward(
          g,
          c,
          p,
          g.input('tokens', 'int64', [1, t]),
          g.input('positions', 'int64', [1, t]),
          g.input('key_bias', 'float32', [1, t]),
        ),
        -1,
      ),
    );
    const lp = evaluate(g, {
      ...feeds,
      tokens: nd([1, t], ids),
      positions: nd(
        [1, t],
        ids.map((_, i) => i),
      ),
      key_bias: nd([1, t], new Array(t).fill(0)),
    })[0]!.data;
    return ids.map((id, i) => (i === 0 ? null : lp[(i - 1) * c.vocabSize + id]!));
  });
}

const maxDiff = (a: (number | null)[][], b: (number | null)[][]) =>
  Math.max(...a.flatMap((r, i) => r.slice(1).map((x, j) => Math.abs(x! - b[i]![j + 1]!))));

describe('LoRA adapters in PEFT format, against the real PEFT 0.21', () => {
  it('we load what PEFT saves and give its log-probs; PEFT loads what we save and gives ours (≤ 1e-4)', (ctx) => {
    if (!hasPeft) {
      process.stderr.write(
        `\n${'!'.repeat(100)}\n!!  SKIPPED: ${ctx.task.name}: ${py} cannot import peft ` +
          `(scripts/setup-python.sh)\n${'!'.repeat(100)}\n`,
      );
      ctx.skip();
    }
    const dir = mkdtempSync(join(tmpdir(), 'rlvr-peft-'));
    execFileSync(py, ['scripts/peft_lora_fixture.py', 'make', dir], { cwd: root, env, stdio: 'pipe' });
    const base = join(dir, 'base');
    const c = llamaConfigOf(JSON.parse(readFileSync(join(base, 'config.json'), 'utf8')));
    const baseWeights = llamaWeightsFrom(
      c,
      readWeightFiles(new Map([['model.safetensors', new Uint8Array(readFileSync(join(base, 'model.safetensors')))]])),
    );
    const ref = JSON.parse(readFileSync(join(dir, 'peft-ref.json'), 'utf8')) as {
      rows: number[][];
      logprobs: (number | null)[][];
    };

    // PEFT -> us.
    const adapter = join(dir, 'peft-adapter');
    const read = readAdapter(
      c,
      readFileSync(join(adapter, 'adapter_config.json'), 'utf8'),
      new Uint8Array(readFileSync(join(adapter, 'adapter_model.safetensors'))),
    );
    expect(read.lora).toEqual({
      r: 4,
      alpha: 8,
      targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
    });
    const withAdapters: ModelConfig = { ...c, lora: read.lora };
    const ours = ourLogprobs(withAdapters, new Map([...baseWeights, ...read.weights]), ref.rows);
    const { lora: _none, ...plain } = withAdapters;
    const plainLp = ourLogprobs(plain, baseWeights, ref.rows);
    expect(maxDiff(plainLp, ref.logprobs)).toBeGreaterThan(1e-2); // the adapter matters
    expect(maxDiff(ours, ref.logprobs)).toBeLessThan(1e-4);

    // us -> PEFT: other adapter weights (A and B random), written by adapterFiles.
    const rng = new Rng(9);
    const mine: Weights = new Map(
      [...read.weights].map(([k, a]) => [k, Float32Array.from(a, () => 0.3 * rng.normal())]),
    );
    const files = adapterFiles(withAdapters, mine);
    const out = join(dir, 'ours-adapter');
    mkdirSync(out);
    writeFileSync(join(out, 'adapter_config.json'), files.config);
    writeFileSync(join(out, 'adapter_model.safetensors'), files.weights);
    const peftLp = JSON.parse(
      execFileSync(py, ['scripts/peft_lora_fixture.py', 'score', base, out, JSON.stringify(ref.rows)], {
        cwd: root,
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as (number | null)[][];
    expect(maxDiff(ourLogprobs(withAdapters, new Map([...baseWeights, ...mine]), ref.rows), peftLp)).toBeLessThan(1e-4);

    // Refusals: an adapter for another base, a missing tensor, rslora.
    const cfgText = readFileSync(join(adapter, 'adapter_config.json'), 'utf8');
    const bytes = new Uint8Array(readFileSync(join(adapter, 'adapter_model.safetensors')));
    expect(() => readAdapter({ ...c, dModel: 64, nHeads: 8 }, cfgText, bytes)).toThrow(/an adapter for another base/);
    expect(() => readAdapter(c, JSON.stringify({ ...JSON.parse(cfgText), use_rslora: true }), bytes)).toThrow(
      /use_rslora/,
    );
    expect(() =>
      readAdapter(c, JSON.stringify({ ...JSON.parse(cfgText), target_modules: ['q_proj', 'lm_head'] }), bytes),
    ).toThrow(/"lm_head" is not one of PEFT's module names/);
    expect(() => readAdapter(c, cfgText, bytes.slice(0, 50))).toThrow(/adapter_model.safetensors/);
  }, 300_000);
});
