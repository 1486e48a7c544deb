// `rlvr bench --presets smollm2-135m`: the flag takes the Llama preset (and refuses an unknown one), and
// a dry run of its whole path at a tiny Llama shape (same code, DRY_LLAMA instead of SmolLM2-135M's
// config) writes the results JSON with its fields. Figures are never asserted: they are the bench's output.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DRY_LLAMA, llamaPresetModel, PEFT_PYTHON } from '../../bench/llama.ts';
import { figureProblems } from '../../scripts/bench-figures.ts';
import { QUICK_FORMS } from '../../scripts/bench-quick-forms.ts';
import { UsageError } from './args.ts';
import { parseBenchOptions, runBench } from './commands/bench.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlvr-bench-llama-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The report (stdout) of the last dryRun. */
let report = '';

/** runBench with its progress (stderr) and report (stdout) kept out of the test output; returns the results JSON. */
async function dryRun(engines: string, name: string): Promise<Record<string, unknown>> {
  const out = join(dir, `${name}.json`);
  report = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const std = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    report += String(s);
    return true;
  });
  try {
    const code = await runBench(
      ['--presets', 'smollm2-135m', '--engines', engines, '--threads', '1', '--reps', '1', '--out', out],
      { llamaModel: DRY_LLAMA },
    );
    expect(code).toBe(0);
  } finally {
    err.mockRestore();
    std.mockRestore();
  }
  return JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
}

describe('rlvr bench --presets smollm2-135m', () => {
  it(
    'accepts smollm2-135m beside tiny and small, keeps tiny,small as the default, and refuses an unknown ' +
      'preset naming the three',
    () => {
      const o = parseBenchOptions(['--presets', 'smollm2-135m']);
      expect(o.llamaPresets).toEqual(['smollm2-135m']);
      expect(o.presets).toEqual([]);
      const all = parseBenchOptions(['--presets', 'tiny,small,smollm2-135m']);
      expect([all.presets, all.llamaPresets]).toEqual([['tiny', 'small'], ['smollm2-135m']]);
      const d = parseBenchOptions([]);
      expect([d.presets, d.llamaPresets]).toEqual([['tiny', 'small'], []]);
      expect(() => parseBenchOptions(['--presets', 'smollm2-360m'])).toThrow(UsageError);
      expect(() => parseBenchOptions(['--presets', 'smollm2-360m'])).toThrow(/tiny, small, smollm2-135m/);
    },
  );

  it("--resident KINDS sets the Llama presets' baked session kinds (none: every run fed; absent: the default)", () => {
    expect(parseBenchOptions(['--presets', 'smollm2-135m']).resident).toBeUndefined();
    expect(parseBenchOptions(['--presets', 'smollm2-135m', '--resident', 'decode,rl']).resident).toEqual([
      'decode',
      'rl',
    ]);
    expect(parseBenchOptions(['--presets', 'smollm2-135m', '--resident', 'none']).resident).toEqual([]);
  });

  it("--layers N keeps SmolLM2-135M's width, heads and vocabulary with its first N layers; refuses 0 and 31", () => {
    expect(parseBenchOptions(['--presets', 'smollm2-135m']).llamaLayers).toBeUndefined();
    const o = parseBenchOptions(['--presets', 'smollm2-135m', '--layers', '2']);
    expect(o.llamaLayers).toBe(2);
    const full = llamaPresetModel('smollm2-135m');
    expect(llamaPresetModel('smollm2-135m', o.llamaLayers)).toEqual({ ...full, nLayers: 2 });
    for (const bad of ['0', '31', '1.5'])
      expect(() => parseBenchOptions(['--presets', 'smollm2-135m', '--layers', bad]), bad).toThrow(UsageError);
    expect(() => parseBenchOptions(['--layers', '31'])).toThrow(/--layers must be 1 to 30/);
  });

  it("builds SmolLM2-135M's shape with LoRA r = 8 on the seven Llama projections", () => {
    const m = llamaPresetModel('smollm2-135m');
    expect(m).toMatchObject({
      arch: 'llama',
      dModel: 576,
      nLayers: 30,
      nHeads: 9,
      nKvHeads: 3,
      dFF: 1536,
      vocabSize: 49152,
      ropeTheta: 100000,
      tiedEmbeddings: true,
      lora: { r: 8, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] },
    });
  });

  it('a dry run at a tiny Llama shape on onnxruntime-node writes the preset with sampling tokens/s, update ' +
    'seconds and peak memory', async () => {
    const json = await dryRun('node', 'node');
    const p = (json.presets as Record<string, Record<string, unknown>>)['smollm2-135m']!;
    expect(p.shape).toMatchObject({ prompts: 2, generations: 2, rows: 4, promptLen: 16, completionLen: 16 });
    expect(p.lora).toMatchObject({ r: 8 });
    expect(p.trainable_parameters).toBeGreaterThan(0);
    const node = (p.engines as Record<string, Record<string, unknown>>)['node@1']!;
    expect(node.sampling_tokens_per_s).toBeGreaterThan(0);
    expect(node.update_s).toBeGreaterThan(0);
    expect(node.update_peak_rss_mib).toBeGreaterThan(0);
    expect(p.ratios).toHaveProperty(['node@1', 'update_speed_vs_pytorch'], null); // no peer in this run
    // the matmul kernels at the preset's shapes (bench/gemm.ts llamaGemms) and the update's matmul FLOPs
    const gemm = p.gemm_gflops as { m: number; n: number; mlas: number; torch: number | null }[];
    expect(gemm.map((g) => [g.m, g.n])).toEqual([
      [96, DRY_LLAMA.dFF],
      [96, DRY_LLAMA.dModel],
      [64, DRY_LLAMA.vocabSize],
      [4, DRY_LLAMA.dFF],
    ]);
    expect(gemm.every((g) => g.mlas > 0 && g.torch === null)).toBe(true);
    expect(p.update_matmul_gflop).toBeGreaterThan(0);
    const quick = QUICK_FORMS.find((f) => f.name.startsWith('rlvr bench, smollm2'))!;
    // the lines of the quick form's kernels and FLOPs (its table's ratios are "—" without PyTorch)
    expect(figureProblems(report, quick.figures).filter((x) => x.includes('matmul'))).toEqual([]);
    expect(report).toMatch(/^The matmul kernels at this shape/m);
  }, 120_000);

  // PyTorch + PEFT from the project's .venv-py (bash scripts/setup-python.sh): without it this test is skipped.
  it.skipIf(!existsSync(PEFT_PYTHON))(
    'the dry run beside PyTorch + PEFT: the same first update (log-probs and loss within 1e-4) and every ratio present',
    async () => {
      const json = await dryRun('node,torch', 'torch');
      const p = (json.presets as Record<string, Record<string, unknown>>)['smollm2-135m']!;
      const check = (p.checks as Record<string, { ok: boolean; max_abs_logp_diff: number; grad_norm_torch: number }>)[
        'torch@1'
      ]!;
      expect(check.max_abs_logp_diff).toBeLessThan(1e-4);
      expect(check.grad_norm_torch).toBeGreaterThan(0); // every group has a reward signal
      expect(check.ok).toBe(true);
      const torch = (p.engines as Record<string, Record<string, unknown>>)['torch@1']!;
      expect(torch.update_peak_rss_mib).toBeGreaterThan(0);
      const r = (p.ratios as Record<string, Record<string, number | null>>)['node@1']!;
      for (const k of ['sampling_vs_pytorch', 'update_speed_vs_pytorch', 'update_peak_memory_vs_pytorch'])
        expect(r[k], k).toBeGreaterThan(0);
    },
    180_000,
  );
});
