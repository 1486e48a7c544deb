/// <reference lib="webworker" />
// The harness's module worker: the engine runs here exactly as in the app's training worker.
import { consoleLines, counters, liveGpuBuffers } from './instrument.ts';
import type { Checkpoint, ControlGraphResult, HarnessRequest, HarnessResult, WorkerMessage } from './protocol.ts';
import type { WebBackend } from '../../src/engine/backend-web.ts';
import { chooseBackend } from '../../src/engine/select-backend.ts';
import { compile } from '../../src/engine/compile.ts';
import { Graph } from '../../src/engine/graph.ts';
import { runTinyTraining } from '../../src/model/tiny-training.ts';

const post = (m: WorkerMessage) => (self as unknown as DedicatedWorkerGlobalScope).postMessage(m);

/**
 * A graph ORT cannot run on the WebGPU EP: the node is built as an op our builder knows, then renamed
 * to `op` (one our builder rightly refuses). It is the negative control for the CPU-placement check:
 * it shows what ORT logs when a node lands on the CPU EP.
 */
async function controlGraph(backend: WebBackend, op: string): Promise<ControlGraphResult> {
  const g = new Graph();
  const x = g.input('x', 'float32', [3, 3]);
  const y = g.reduceSum(x, [0, 1], false);
  g.output(g.mul(y, 2), 'y');
  const i = g.nodes.findIndex((n) => n.op === 'ReduceSum');
  const node = g.nodes[i]!;
  g.nodes[i] = { op, inputs: node.inputs, outputs: node.outputs, attrs: {} };
  const compiled = compile(g);
  const from = consoleLines.length;
  try {
    const session = await backend.createSession(compiled, { label: `control-${op}` });
    const out = await session.run({ x: backend.tensor('float32', [2, 0, 0, 0, 3, 0, 0, 0, 1], [3, 3]) });
    const y = (await backend.read(out['y']!))[0];
    for (const t of Object.values(out)) backend.dispose(t);
    await session.release();
    return { op, logs: consoleLines.slice(from).concat(`control result y=${y}`) };
  } catch (e) {
    return { op, logs: consoleLines.slice(from), error: e instanceof Error ? e.message : String(e) };
  }
}

async function main(req: HarnessRequest): Promise<HarnessResult> {
  const t0 = performance.now();
  const verbose = req.mode === 'placement';
  const backend = await chooseBackend(req.backend, verbose ? { logLevel: 'verbose', logSeverityLevel: 0 } : {});
  const checkpoints: Checkpoint[] = [];
  const stepMs: number[] = [];
  const logFrom = consoleLines.length;
  let last = performance.now();
  let sessionMs = 0;
  let placementLogs: string[] = [];
  const result = await runTinyTraining(backend, req.steps, (i, loss) => {
    const now = performance.now();
    if (i === 0) {
      // The first callback comes after session creation + the first run.
      sessionMs = now - t0;
      placementLogs = consoleLines.slice(logFrom);
    }
    stepMs.push(now - last);
    last = now;
    post({ type: 'progress', step: i + 1, loss });
    if (req.mode === 'soak' && ((i + 1) % req.every === 0 || i === 0)) {
      const gpu = liveGpuBuffers();
      checkpoints.push({ step: i + 1, liveTensors: backend.liveTensors(), liveGpuBuffers: gpu.count, liveGpuBytes: gpu.bytes, loss, elapsedMs: now - t0 });
    }
  });
  const control = verbose ? await controlGraph(backend, req.cpuOp) : undefined;
  return {
    request: req,
    backend: { kind: backend.kind, description: backend.description, reason: backend.reason, threads: backend.threads, crossOriginIsolated: backend.crossOriginIsolated },
    adapter: backend.adapter,
    adapterInUse: await backend.adapterInUse(),
    losses: result.losses,
    stepMs,
    sessionMs,
    totalMs: performance.now() - t0,
    nodeCount: result.nodeCount,
    liveTensorsAfter: result.liveTensorsAfter,
    checkpoints,
    workersSpawned: counters.workersSpawned,
    placementLogs,
    ...(control ? { control } : {}),
  };
}

self.onmessage = (e: MessageEvent<HarnessRequest>) => {
  main(e.data).then(
    (result) => post({ type: 'result', result }),
    (err: unknown) => post({ type: 'error', message: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined }),
  );
};
