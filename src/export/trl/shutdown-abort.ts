// Two CPU processes under `accelerate launch` (torchrun over gloo) sometimes end with one of them aborted
// at interpreter shutdown, after it trained and saved: "terminate called without an active exception", a
// C++ thread destroyed while still joinable. Seen in loaded fresh-clone CI by src/export/trl/trl-run.test.ts
// and src/export/trl/recorder-run.test.ts, with and without destroy_process_group() at the end of the
// script. It is torch's shutdown, not what those tests check, so they launch once more from scratch on
// that failure alone; any other failure, or the same one twice, still fails.

import { rmSync } from 'node:fs';

export const SHUTDOWN_ABORT = /terminate called without an active exception/;

/** Runs `launch`; on the shutdown abort alone, warns, empties `out` (the run's output folder) and runs it again. */
export async function launchOnceMoreAfterShutdownAbort<T>(launch: () => Promise<T>, out: string): Promise<T> {
  try {
    return await launch();
  } catch (e) {
    if (!SHUTDOWN_ABORT.test(String(e))) throw e;
    console.warn('two-process launch: a process aborted at shutdown after training; launching once more');
    rmSync(out, { recursive: true, force: true });
    return launch();
  }
}
