// rlvr export --format peft: a checkpoint trained with lora_r > 0 gives its adapters as PEFT's
// save_pretrained writes them (PEFT itself reads that format: src/model/peft-adapter.test.ts runs the
// real PEFT on adapterFiles); read back, they are the checkpoint's adapters bit for bit.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAdapter } from '../model/peft-adapter.ts';
import { writeCheckpoint } from '../node/checkpoint-files.ts';
import { loadBase, withLora } from '../rl/run.ts';
import { validateConfig } from '../rl/config.ts';
import { rlvr } from './rlvr-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlvr-peft-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rlvr export --format peft', () => {
  it("writes a LoRA checkpoint's adapters in PEFT's format, and refuses a checkpoint without adapters", async () => {
    const shipped = 'public/checkpoints/arithmetic-tiny';
    const base = loadBase(
      JSON.parse(readFileSync(`${shipped}/manifest.json`, 'utf8')),
      new Uint8Array(readFileSync(`${shipped}/model.safetensors`)),
    );
    const lora = withLora(
      base,
      validateConfig({
        task: 'arithmetic',
        lora_r: 4,
        lora_alpha: 8,
        target_modules: 'o_proj,up_proj,down_proj',
        seed: 3,
      }),
    );
    // Trained adapters are not zero: give B values so the round trip is checked on every number.
    for (const [k, w] of lora.weights) if (k.endsWith('.lora_B')) w.forEach((_, i) => (w[i] = Math.sin(i + k.length)));
    const ckpt = join(dir, 'lora-ckpt');
    writeCheckpoint(ckpt, lora.manifest, lora.weights);

    const out = join(dir, 'adapter');
    const r = await rlvr('export', '--format', 'peft', '--model', join(ckpt, 'manifest.json'), '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout.trim());
    expect(printed.format).toBe('peft');
    expect(printed.lora).toEqual(lora.manifest.model.lora);
    expect(r.stderr).not.toMatch(/LoRA B matrix is zero/);
    expect(readFileSync(join(out, 'README.md'), 'utf8')).not.toMatch(/Warning/);
    const config = readFileSync(join(out, 'adapter_config.json'), 'utf8');
    expect(JSON.parse(config)).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8 });
    const back = readAdapter(
      base.manifest.model,
      config,
      new Uint8Array(readFileSync(join(out, 'adapter_model.safetensors'))),
    );
    expect(back.lora).toEqual(lora.manifest.model.lora);
    const adapterKeys = [...lora.weights.keys()].filter((k) => k.includes('.lora_'));
    expect([...back.weights.keys()].sort()).toEqual(adapterKeys.sort());
    for (const k of adapterKeys) expect(Array.from(back.weights.get(k)!)).toEqual(Array.from(lora.weights.get(k)!));

    // A checkpoint with every weight trained has no adapters: said so, with what to do instead.
    const whole = await rlvr(
      'export',
      '--format',
      'peft',
      '--model',
      `${shipped}/manifest.json`,
      '--out',
      join(dir, 'x'),
    );
    expect(whole.code).not.toBe(0);
    expect(whole.stderr).toMatch(/has no LoRA adapters .*--format hf/);
  }, 120_000);

  it('warns on stderr and in README.md when every lora_B is exactly zero (a run that never got a reward)', async () => {
    const shipped = 'public/checkpoints/arithmetic-tiny';
    const base = loadBase(
      JSON.parse(readFileSync(`${shipped}/manifest.json`, 'utf8')),
      new Uint8Array(readFileSync(`${shipped}/model.safetensors`)),
    );
    // Fresh adapters, B zero as PEFT initialises it: what a run whose every reward is 0 leaves.
    const lora = withLora(
      base,
      validateConfig({ task: 'arithmetic', lora_r: 4, lora_alpha: 8, target_modules: 'o_proj,up_proj', seed: 3 }),
    );
    const ckpt = join(dir, 'zero-ckpt');
    writeCheckpoint(ckpt, lora.manifest, lora.weights);
    const out = join(dir, 'zero-adapter');
    const r = await rlvr('export', '--format', 'peft', '--model', join(ckpt, 'manifest.json'), '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const warning =
      'every LoRA B matrix is zero: the adapters change nothing — did the run get any reward? (8 adapters, r = 4;';
    expect(r.stderr).toContain(`warning: ${join(ckpt, 'manifest.json')}: ${warning}`);
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toContain(`**Warning:** ${warning}`);
  }, 120_000);
});
