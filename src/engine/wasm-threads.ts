/**
 * How many WASM threads ONNX Runtime Web gets for a run, by the model's size and the machine's cores.
 * ORT Web has one thread pool for the whole worker (`env.wasm.numThreads`, read when its first session is
 * created), so sampling and the update share one count. A small model's decode ops are too small for a
 * second thread to pay, and on a 2-core machine the page's own thread (its charts and inspector) needs a core
 * while the run trains: there the default demo's steps were about 17% faster on one thread than on two, the
 * same numbers drawn (docs/measured.md, "The demo on one thread"). A larger model keeps the backend's own
 * choice (`wasmThreads` below): the small preset's WASM step took 4.3 s on one thread
 * and 2.85 s on two.
 */

/** Below this many parameters a model counts as small. The shipped tiny checkpoints are about 0.2M. */
export const SMALL_MODEL_PARAMETERS = 1_000_000;

/**
 * The threads for a run of a model of `parameters` (null: not known) on `cores` logical cores: 1 for a small
 * model on at most 2 cores; otherwise undefined, the backend's own choice.
 */
export function runWasmThreads(parameters: number | null, cores: number): number | undefined {
  return parameters !== null && parameters < SMALL_MODEL_PARAMETERS && cores <= 2 ? 1 : undefined;
}

interface NavigatorLike {
  hardwareConcurrency?: number;
}

/** The WASM thread count the backend asks for when the run sets none, and why. */
export function wasmThreads(): { threads: number; note: string; isolated: boolean } {
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  const cores = (globalThis as { navigator?: NavigatorLike }).navigator?.hardwareConcurrency ?? 1;
  if (!isolated)
    return {
      threads: 1,
      note: 'not cross-origin isolated (COOP/COEP headers missing), so ONNX Runtime runs one thread',
      isolated,
    };
  return {
    threads: Math.max(1, Math.min(4, cores)),
    note: `cross-origin isolated, ${cores} logical cores`,
    isolated,
  };
}

/** The threads ORT is given when a run asks for `asked` (undefined: none): one on a page that is not isolated. */
export function threadsGiven(asked?: number): number {
  const t = wasmThreads();
  return t.isolated ? (asked ?? t.threads) : 1;
}
