/** Messages between the bench page (driven from Node by Playwright) and its per-backend workers. */
import type { ModelConfig } from '../../src/model/config.ts';
import type { RunConfig } from '../../src/rl/config.ts';
import type { UpdateBatch } from '../batches.ts';
import type { FixedRows } from '../core.ts';

export type BenchRequest =
  | { cmd: 'init'; kind: 'wasm' | 'webgpu' }
  | { cmd: 'load'; preset: string; model: ModelConfig; weightsUrl: string; config: RunConfig; fixed?: FixedRows }
  | { cmd: 'sample'; preset: string; seed: number }
  | { cmd: 'setBatch'; preset: string; batch: UpdateBatch }
  | { cmd: 'check'; preset: string }
  | { cmd: 'update'; preset: string }
  | { cmd: 'step'; preset: string }
  | { cmd: 'dispose'; preset: string }
  | { cmd: 'gemm' };

export type BenchReply = { ok: true; [k: string]: unknown } | { ok: false; error: string };
