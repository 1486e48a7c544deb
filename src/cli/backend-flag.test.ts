import { describe, expect, it } from 'vitest';
import { parseArgs } from './args.ts';
import { backendFromFlags } from './backend-flag.ts';

describe('the CLI thread flag', () => {
  it('--threads wins; unset falls back to RLVR_THREADS, then to automatic', async () => {
    const before = process.env.RLVR_THREADS;
    try {
      process.env.RLVR_THREADS = '1';
      expect(backendFromFlags(parseArgs(['--threads', '2'])).description).toBe('onnxruntime-node CPU (2 threads)');
      expect(backendFromFlags(parseArgs([])).description).toBe('onnxruntime-node CPU (1 thread)');
      delete process.env.RLVR_THREADS;
      expect(backendFromFlags(parseArgs([])).description).toBe('onnxruntime-node CPU (all cores, sampling on one)');
    } finally {
      if (before === undefined) delete process.env.RLVR_THREADS;
      else process.env.RLVR_THREADS = before;
    }
  });
});
