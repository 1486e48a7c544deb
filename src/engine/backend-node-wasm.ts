import * as ort from 'onnxruntime-web';
import { OrtBackend, type OrtModule } from './backend.ts';

/** onnxruntime-web's WASM EP inside Node: the browser's runtime, headless (`--backend wasm`). */
export function createNodeWasmBackend(threads = 1): OrtBackend {
  ort.env.wasm.numThreads = threads;
  return new OrtBackend(
    ort as unknown as OrtModule,
    'wasm',
    `onnxruntime-web WASM in Node, ${threads} thread${threads === 1 ? '' : 's'}`,
    '--backend wasm',
    {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
    },
  );
}
