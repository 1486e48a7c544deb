import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability` (issue 9), Node part: the long soaks, the 10,000-string verifier fuzz and
 * the 50 MB dataset in reliability/, plus the fast reliability tests that also run in the main suite
 * (so this one command runs every Node reliability test). --expose-gc lets the soak measure the JS heap
 * after a full collection.
 */
export default defineConfig({
  test: {
    include: [
      'reliability/**/*.test.ts',
      'workers/training-session.faults.test.ts',
      'src/ui/derive/config-file.test.ts',
      'src/tasks/robustness.test.ts',
      'src/tasks/dataset.test.ts',
      'src/model/checkpoint.test.ts',
    ],
    testTimeout: 900_000,
    hookTimeout: 120_000,
    pool: 'forks',
    execArgv: ['--expose-gc'],
    // One file at a time: the soak's timings and heap readings mean more on an otherwise idle worker.
    fileParallelism: false,
  },
});
