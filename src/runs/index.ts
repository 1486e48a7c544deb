/** The run readers' public surface (src/runs/types.ts has the contract). */
export * from './types.ts';
export { detectRuns, openAllRuns, openRun } from './detect.ts';
export { parsePythonJson, RunReadError, subRunFiles } from './files.ts';
export { MAX_LINE_BYTES } from './lines.ts';
export { groupRows, meanStd } from './opened-run.ts';
