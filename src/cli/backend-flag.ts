import type { Backend } from '../engine/backend.ts';
import { createNodeBackend } from '../engine/backend-node.ts';
import { createNodeWasmBackend } from '../engine/backend-node-wasm.ts';
import { flag, intFlag, UsageError, type FlagTable, type ParsedArgs } from './args.ts';

/** The flags backendFromFlags reads, for the tables of the commands that run models. */
export const BACKEND_FLAGS: FlagTable = {
  backend: { value: 'node|wasm', help: "onnxruntime-node (default) or onnxruntime-web's WASM EP in Node" },
  threads: {
    value: 'N',
    help:
      'intra-op threads (default: RLVR_THREADS, else on node all cores for the\n' +
      'update and one for sampling; 1 on wasm)',
  },
};

/** `--backend node|wasm` (default node: onnxruntime-node) and `--threads N`, shared by the commands that run models. */
export function backendFromFlags(a: ParsedArgs): Backend {
  const kind = flag(a, 'backend') ?? 'node';
  const threads = intFlag(a, 'threads', 0);
  if (kind === 'node') return createNodeBackend(threads || undefined); // unset: RLVR_THREADS, else automatic
  if (kind === 'wasm') return createNodeWasmBackend(Math.max(1, threads));
  if (kind === 'webgpu') throw new UsageError('--backend webgpu needs a browser: open the app with ?backend=webgpu');
  throw new UsageError(`--backend must be node or wasm, got "${kind}"`);
}
