/**
 * What `rlvr bench` measures with (src/cli/commands/bench.ts): its paths, the presets' weights and task
 * difficulty, one measurement and its statistics, and the shape of the check against PyTorch.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCheckpoint } from '../src/node/checkpoint-files.ts';
import { saveWeights } from '../src/model/checkpoint.ts';
import { modelPresets, type ModelConfig } from '../src/model/config.ts';
import type { Weights } from '../src/model/policy.ts';
import { readSafetensors } from '../src/model/safetensors.ts';
import { initParams } from '../src/model/transformer.ts';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const BENCH = join(ROOT, 'bench');
export const WORK = join(BENCH, '.work');
const TINY_MANIFEST = join(ROOT, 'public/checkpoints/arithmetic-tiny/manifest.json');
/** Ours and PyTorch must agree on log-probs and loss within this, or no ratio is printed. */
export const TOLERANCE = 1e-4;

export type Metric = 'sampling' | 'update' | 'step';
export const METRICS: Metric[] = ['sampling', 'update', 'step'];

export interface Sample {
  /** Seconds the measurement took. */
  s: number;
  /** Tokens it processed (sampling: rows x decode positions; update: completion tokens; step: sampled tokens). */
  tokens: number;
  extra?: Record<string, number>;
}

export interface Stat {
  median: number;
  min: number;
  max: number;
  n: number;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const stat = (xs: number[]): Stat | null =>
  xs.length ? { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length } : null;

export function version(pkg: string): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return 'unknown';
  }
}

export function dpkgVersion(pkg: string): string {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'not installed';
}

export interface PresetSetup {
  id: 'tiny' | 'small';
  model: ModelConfig;
  weights: Weights;
  weightsFile: string;
  source: string;
  difficulty: Record<string, number | string>;
}

/** tiny: the shipped checkpoint; small: no checkpoint ships, so seeded initial weights saved once to bench/.work/. */
export function presetSetup(id: 'tiny' | 'small'): PresetSetup {
  const { manifest, weights } = readCheckpoint(TINY_MANIFEST);
  const difficulty = manifest.tasks.find((t) => t.task === 'arithmetic')?.difficulty ?? {};
  if (id === 'tiny')
    return {
      id,
      model: manifest.model,
      weights,
      weightsFile: join(ROOT, 'public/checkpoints/arithmetic-tiny', manifest.weights),
      source: 'public/checkpoints/arithmetic-tiny (shipped, pretrained)',
      difficulty,
    };
  const model = modelPresets.small;
  const file = join(WORK, 'small-init-seed1.safetensors');
  if (!existsSync(file)) {
    mkdirSync(WORK, { recursive: true });
    writeFileSync(file, saveWeights(model, initParams(model, 1), { name: 'small-init-seed1' }));
  }
  const { tensors } = readSafetensors(new Uint8Array(readFileSync(file)));
  const w: Weights = new Map([...tensors].map(([n, t]) => [n, t.data]));
  return {
    id,
    model,
    weights: w,
    weightsFile: file,
    source:
      'initParams(modelPresets.small, 1) saved to bench/.work/small-init-seed1.safetensors (no small checkpoint ships)',
    difficulty,
  };
}

export interface CheckResult {
  ok: boolean;
  max_abs_logp_diff: number;
  abs_loss_diff: number;
  loss_ours: number;
  loss_torch: number;
  grad_norm_ours: number;
  grad_norm_torch: number;
  max_abs_entropy_diff: number;
  max_abs_weight_diff_after_update: number;
  pack_matches: boolean;
  tokens_compared: number;
}

export function fmtNum(x: number): string {
  if (!Number.isFinite(x)) return 'n/a';
  if (x >= 1000) return Math.round(x).toLocaleString('en-US');
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  return x.toFixed(2);
}
export const fmtStat = (s: Stat | null) => (s ? `${fmtNum(s.median)} (${fmtNum(s.min)}–${fmtNum(s.max)})` : '—');
