import type { Backend } from '../engine/backend.ts';
import { createNodeBackend } from '../engine/backend-node.ts';
import { createNodeWasmBackend } from '../engine/backend-node-wasm.ts';
import { flag, intFlag, UsageError, type ParsedArgs } from './args.ts';

/** `--backend node|wasm` (default node: onnxruntime-node) and `--threads N`, shared by the commands that run models. */
export function backendFromFlags(a: ParsedArgs): Backend {
  const kind = flag(a, 'backend') ?? 'node';
  const threads = intFlag(a, 'threads', 0);
  if (kind === 'node') return createNodeBackend(threads || undefined); // unset: RLVR_THREADS, else automatic
  if (kind === 'wasm') return createNodeWasmBackend(Math.max(1, threads));
  if (kind === 'webgpu') throw new UsageError('--backend webgpu needs a browser: open the app with ?backend=webgpu');
  throw new UsageError(`--backend must be node or wasm, got "${kind}"`);
}
