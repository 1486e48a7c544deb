import * as ort from 'onnxruntime-node';
import { OrtBackend, type OrtModule } from './backend.ts';

/**
 * The headless backend (CLI, tests, benchmarks): onnxruntime-node on the CPU. Threads default to
 * RLVR_THREADS, else ONNX Runtime's choice (all cores); set RLVR_THREADS=1 when running one job per core.
 */
export function createNodeBackend(threads = Number(process.env.RLVR_THREADS ?? 0) || 0): OrtBackend {
  return new OrtBackend(ort as unknown as OrtModule, 'node', 'onnxruntime-node CPU', 'Node.js: onnxruntime-node', {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
  });
}
