/**
 * Messages between the bench pages (bench.ts, driven from Node by Playwright; device.ts, which drives
 * itself) and their per-backend workers.
 */
import type { ModelConfig } from '../../src/model/config.ts';
import type { RunConfig } from '../../src/rl/config.ts';
import type { UpdateBatch } from '../batches.ts';
import type { GemmShape } from '../gemm.ts';
import type { FixedRows } from '../core.ts';

export type BenchRequest =
  | { cmd: 'init'; kind: 'wasm' | 'webgpu' }
  | {
      cmd: 'load';
      preset: string;
      model: ModelConfig;
      /** Where to fetch the weights (safetensors); without it, random weights (initParams seed 1). */
      weightsUrl?: string;
      config: RunConfig;
      fixed?: FixedRows;
    }
  /** `keep`: the reply carries the prompts and completions too (to make an update batch of them). */
  | { cmd: 'sample'; preset: string; seed: number; keep?: boolean }
  | { cmd: 'setBatch'; preset: string; batch: UpdateBatch }
  | { cmd: 'check'; preset: string }
  | { cmd: 'update'; preset: string }
  | { cmd: 'step'; preset: string }
  | { cmd: 'dispose'; preset: string }
  /** Without a shape: the GPT presets' MLP matmul, B fed (gemm.ts). */
  | { cmd: 'gemm'; shape?: GemmShape; resident?: boolean };

export type BenchReply = { ok: true; [k: string]: unknown } | { ok: false; error: string };
