import * as ort from 'onnxruntime-node';
import { OrtBackend, type OrtModule } from './backend.ts';

/** The headless backend (CLI, tests, benchmarks): onnxruntime-node on the CPU. */
export function createNodeBackend(threads = 0): OrtBackend {
  return new OrtBackend(ort as unknown as OrtModule, 'node', 'onnxruntime-node CPU', 'Node.js: onnxruntime-node', {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
  });
}
