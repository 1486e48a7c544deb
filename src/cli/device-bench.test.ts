// The device bench (bench/browser/device.html, served and driven by bench/browser/device_bench.py) is for a
// machine with a GPU but no Node, so it must work there the first time: here it is built with
// scripts/build-device-bench.mjs and run in Debian's Chromium on a 2-layer Llama (model=dry). On this
// machine's software adapter it must refuse the bench unless asked (at the 135M shape that would take
// hours), and with --allow-software it must run and keep each engine's figures and memory by phase.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
// Debian's Chromium, as e2e/lib.mjs finds it.
const CHROMIUM_PATH = process.env.RLVR_CHROMIUM_PATH || '/usr/bin/chromium';
const dir = mkdtempSync(join(tmpdir(), 'rlvr-device-bench-'));
const dist = join(dir, 'page');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  const built = spawnSync('node', ['scripts/build-device-bench.mjs', dist], { cwd: root, encoding: 'utf8' });
  expect(built.status, built.stderr).toBe(0);
}, 120_000);

function bench(out: string, ...extra: string[]) {
  const args = ['bench/browser/device_bench.py', '--dist', dist, '--chromium', CHROMIUM_PATH, '--out', out];
  const r = spawnSync('python3', [...args, '--probe-timeout', '30', '--timeout', '120', ...extra], {
    cwd: root,
    encoding: 'utf8',
  });
  const report = JSON.parse(readFileSync(join(out, 'device-bench.json'), 'utf8')) as Record<string, unknown>;
  return { status: r.status, stdout: r.stdout, report };
}

describe('the device bench page and its server', () => {
  it('stops after the probes when no flag set gives a hardware adapter', () => {
    const { status, stdout, report } = bench(join(dir, 'probe'), '--query', 'model=dry&rows=4&reps=1&kinds=wasm');
    expect(status, stdout).toBe(2);
    const probes = report.probes as { flags: string[]; result: { probe: { adapter: unknown } } | null }[];
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.every((p) => p.result !== null)).toBe(true);
    expect(report.result).toBeUndefined();
  }, 180_000);

  it('with --allow-software runs the rounds and keeps the figures, the partial ones and memory by phase', () => {
    const q = 'model=dry&rows=4&reps=2&kinds=wasm';
    const { status, stdout, report } = bench(join(dir, 'run'), '--query', q, '--allow-software');
    expect(status, stdout).toBe(0);
    const result = report.result as { results: { rows: number; engines: Record<string, unknown> }[] };
    expect(result.results.map((r) => r.rows)).toEqual([4]);
    const wasm = result.results[0]!.engines.wasm as { sampling: { s: number; tokens: number }[]; update: unknown[] };
    expect(wasm.sampling).toHaveLength(2);
    expect(wasm.update).toHaveLength(2);
    expect(wasm.sampling.every((x) => x.s > 0 && x.tokens > 0)).toBe(true);
    expect((report.partial as unknown[]).length).toBe(1);
    const peaks = report.peaks_by_phase as Record<string, { rss_mib: number }>;
    expect(peaks['wasm-4-load']!.rss_mib).toBeGreaterThan(0);
  }, 240_000);
});
