import { describe, expect, it } from 'vitest';
import { searchToSetup } from './url-state.ts';
import {
  adapterLine,
  buildReport,
  DEFAULT_BENCH_STEPS,
  median,
  summarise,
  webgpuOverWasm,
  type BackendRun,
} from './bench-report.ts';
import { modelPresets } from '../../model/config.ts';

const run = (kind: 'wasm' | 'webgpu', secs: number[]): BackendRun => ({
  kind,
  description: kind === 'wasm' ? 'WASM, 2 threads' : 'WebGPU (google swiftshader)',
  threads: 2,
  warmup: [{ seconds: 9, sampling: 5, update: 4 }],
  steps: secs.map((s) => ({ seconds: s, sampling: s * 0.6, update: s * 0.4 })),
});

describe('device benchmark report', () => {
  it('takes medians of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('summarises steps per second from the median step', () => {
    const s = summarise(run('wasm', [0.5, 0.4, 2, 0.5, 0.6]));
    expect(s.median_step_seconds).toBe(0.5);
    expect(s.steps_per_second).toBe(2);
    expect(s.step_seconds).toEqual([0.5, 0.4, 2, 0.5, 0.6]);
    expect(s.warmup_seconds).toEqual([9]);
    expect(s.median_sampling_seconds).toBeCloseTo(0.3, 10);
  });

  it('refuses runs without a positive step time', () => {
    expect(() => summarise(run('wasm', []))).toThrow(/no measured steps/);
    expect(() => summarise(run('webgpu', [0.5, 0]))).toThrow(/webgpu: a step took 0 s/);
  });

  it('gives the WebGPU/WASM ratio of steps per second, with significant digits kept for tiny ratios', () => {
    const wasm = summarise(run('wasm', [0.5]));
    expect(webgpuOverWasm(wasm, summarise(run('webgpu', [0.25])))).toBe(2);
    expect(webgpuOverWasm(wasm, summarise(run('webgpu', [5000])))).toBe(0.0001);
    expect(webgpuOverWasm(wasm, null)).toBeNull();
  });

  it('builds the JSON with both backends or a skip reason', () => {
    const base = {
      date: new Date('2026-11-23T01:00:00Z'),
      browser: { user_agent: 'UA', hardware_concurrency: 8, cross_origin_isolated: true },
      adapter: null,
      webgpuNote: 'WebGPU is unavailable: no adapter',
      model: { name: 'nano', parameters: 24512, config: modelPresets.nano },
      task: 'arithmetic',
      batch: { prompts_per_step: 2, num_generations: 4, max_completion_length: 8 },
      warmupSteps: 1,
      measuredSteps: 2,
    };
    const r = buildReport({
      ...base,
      runs: { wasm: run('wasm', [0.2, 0.4]) },
      skipped: { webgpu: 'WebGPU is unavailable: no adapter' },
    });
    expect(r.batch.rows).toBe(8);
    expect(r.wasm).toMatchObject({ median_step_seconds: 0.3, steps_per_second: 3.333 });
    expect(r.webgpu).toEqual({ skipped: 'WebGPU is unavailable: no adapter' });
    expect(r.webgpu_over_wasm).toBeNull();
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    const both = buildReport({
      ...base,
      runs: { wasm: run('wasm', [0.2]), webgpu: run('webgpu', [0.1]) },
      skipped: {},
    });
    expect(both.webgpu_over_wasm).toBe(2);
  });

  it('reads ?bench=1 and ?bench_steps=N, naming a bad step count', () => {
    expect(searchToSetup('?bench=1&bench_steps=3').page.bench).toEqual({ open: true, steps: 3, note: null });
    expect(searchToSetup('?task=sat').page.bench).toEqual({ open: false, steps: DEFAULT_BENCH_STEPS, note: null });
    const bad = searchToSetup('?bench=1&bench_steps=0').page.bench;
    expect(bad.steps).toBe(DEFAULT_BENCH_STEPS);
    expect(bad.note).toMatch(/bench_steps=0 is not a whole number from 1 to 50/);
  });

  it('names the adapter, marking software ones', () => {
    expect(
      adapterLine({
        vendor: 'google',
        architecture: 'swiftshader',
        device: '',
        description: 'SwiftShader Device (Subzero)',
        software: true,
      }),
    ).toBe('google swiftshader (SwiftShader Device (Subzero)), a software adapter');
    expect(
      adapterLine({ vendor: 'nvidia', architecture: 'ampere', device: '', description: '', software: false }),
    ).toBe('nvidia ampere');
  });
});

describe('the bench keys in the URL', () => {
  it('are neither settings nor an experiment', async () => {
    const { searchToSetup } = await import('./url-state.ts');
    const r = searchToSetup('?bench=1&bench_steps=3&backend=webgpu');
    expect(r.notes).toEqual([]);
    expect(r.hasExperiment).toBe(false);
    expect(r.setup.backend).toBe('webgpu');
  });
});
