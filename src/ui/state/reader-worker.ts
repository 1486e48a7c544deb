/**
 * Starts a run reader worker (workers/run-reader.worker.ts): the viewer's runs (run-sources.ts) and the
 * page's recordings (record-readers.ts) are read by the same worker script, one place that starts it.
 */
export const newReaderWorker = (): Worker =>
  new Worker(new URL('../../../workers/run-reader.worker.ts', import.meta.url), { type: 'module', name: 'run reader' });
