import * as ort from 'onnxruntime-node';
import { OrtBackend, type OrtModule } from './backend.ts';

/**
 * The headless backend (CLI, tests, benchmarks): onnxruntime-node on the CPU. Threads default to
 * RLVR_THREADS, else ONNX Runtime's choice (all cores) for the update and one thread for sampling
 * (SessionOptions.smallOps); set RLVR_THREADS=1 when running one job per core.
 */
export function createNodeBackend(threads = threadsFromEnv()): OrtBackend {
  const what = threads ? `${threads} thread${threads === 1 ? '' : 's'}` : 'all cores, sampling on one';
  return new OrtBackend(
    ort as unknown as OrtModule,
    'node',
    `onnxruntime-node CPU (${what})`,
    'Node.js: onnxruntime-node',
    nodeSessionOptions(threads),
  );
}

/** The session options of every onnxruntime-node session (the bench's profiler adds its own on top). */
export function nodeSessionOptions(threads: number) {
  return {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all' as const,
    intraOpNumThreads: threads,
    // With memory patterns ONNX Runtime plans one block for a session's intermediates after its first
    // run and allocates it on the second, so every new session paid for two runs' worth of fresh memory
    // (page faults cost seconds per GB on a VM). Without them the arena grows once and is reused: the
    // first runs of a 512-row update are one slow run instead of two, and peak memory is lower
    // (countdown recipe, 8 steps: 2.6 GB instead of 3.3 GB).
    enableMemPattern: false,
  };
}

/** The engine layer compiles without Node's types, so the environment is reached through globalThis. */
function threadsFromEnv(): number {
  const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env;
  return Number(env?.RLVR_THREADS ?? 0) || 0;
}
