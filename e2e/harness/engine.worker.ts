/// <reference lib="webworker" />
// The harness's module worker: the engine runs here exactly as in the app's training worker.
import { consoleLines, counters, liveGpuBuffers } from './instrument.ts';
import { appGraphs, cpuOnlyGraph, parsePlacement } from './graphs.ts';
import type { Checkpoint, GraphPlacement, HarnessRequest, HarnessResult, WorkerMessage } from './protocol.ts';
import { samplerScorerParity, type Parity } from '../../src/model/parity.ts';
import type { CompiledGraph } from '../../src/engine/compile.ts';
import type { WebBackend } from '../../src/engine/backend-web.ts';
import { chooseBackend } from '../../src/engine/select-backend.ts';
import { runTinyTraining } from '../../src/model/tiny-training.ts';

const post = (m: WorkerMessage) => (self as unknown as DedicatedWorkerGlobalScope).postMessage(m);
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Creates a session for `graph`, reads ORT's placement report from the log lines it printed, releases it. */
async function placementOf(
  backend: WebBackend,
  name: string,
  build: () => CompiledGraph,
  run = false,
): Promise<GraphPlacement> {
  const t0 = performance.now();
  const from = consoleLines.length;
  let nodeCount = 0;
  let value: number | undefined;
  let error: string | undefined;
  try {
    const graph = build();
    nodeCount = graph.nodeCount;
    const session = await backend.createSession(graph, { label: name });
    if (run) {
      const out = await session.run({ x: backend.tensor('float32', [2, 0, 0, 0, 3, 0, 0, 0, 1], [3, 3]) });
      value = (await backend.read(out['y']!))[0] as number;
      for (const t of Object.values(out)) backend.dispose(t);
    }
    await session.release();
  } catch (e) {
    error = message(e);
  }
  const lines = consoleLines.slice(from);
  const at = lines.findIndex((l) => l.includes('Node placements'));
  return {
    graph: name,
    nodeCount,
    placement: parsePlacement(lines),
    createMs: performance.now() - t0,
    excerpt: (at >= 0 ? lines.slice(at, at + 40) : lines.slice(-20)).map((l) => l.slice(0, 300)),
    ...(error ? { error } : {}),
    ...(value !== undefined ? { value } : {}),
  };
}

async function main(req: HarnessRequest): Promise<HarnessResult> {
  const t0 = performance.now();
  const verbose = req.mode === 'placement';
  // Severity 0 (VERBOSE) on the session logger is what makes ORT print its node placements.
  const backend = await chooseBackend(req.backend, verbose ? { logLevel: 'verbose', logSeverityLevel: 0 } : {});
  const checkpoints: Checkpoint[] = [];
  const stepMs: number[] = [];
  const placements: GraphPlacement[] = [];
  let control: GraphPlacement | null = null;
  let losses: number[] = [];
  let nodeCount = 0;
  let liveTensorsAfter = 0;
  let firstStepMs = 0;
  let parity: Parity | null = null;

  if (req.mode === 'parity') {
    parity = await samplerScorerParity(backend);
  } else if (req.mode === 'placement') {
    for (const [name, build] of Object.entries(appGraphs)) placements.push(await placementOf(backend, name, build));
    control = await placementOf(backend, `control (${req.cpuOp})`, () => cpuOnlyGraph(req.cpuOp), true);
  } else {
    let last = performance.now();
    const result = await runTinyTraining(backend, req.steps, (i, loss) => {
      const now = performance.now();
      if (i === 0) firstStepMs = now - t0;
      stepMs.push(now - last);
      last = now;
      post({ type: 'progress', step: i + 1, loss });
      if (req.mode === 'soak' && (i === 0 || (i + 1) % req.every === 0)) {
        // At this point the step's outputs are live and the previous state not yet disposed: the
        // steady-state peak, which must be the same at every checkpoint.
        const gpu = liveGpuBuffers();
        checkpoints.push({
          step: i + 1,
          liveTensors: backend.liveTensors(),
          liveGpuBuffers: gpu.count,
          liveGpuBytes: gpu.bytes,
          loss,
          elapsedMs: now - t0,
        });
      }
    });
    losses = result.losses;
    nodeCount = result.nodeCount;
    liveTensorsAfter = result.liveTensorsAfter;
  }
  return {
    request: req,
    backend: {
      kind: backend.kind,
      description: backend.description,
      reason: backend.reason,
      threads: backend.threads,
      crossOriginIsolated: backend.crossOriginIsolated,
    },
    adapter: backend.adapter,
    adapterInUse: await backend.adapterInUse(),
    losses,
    stepMs,
    firstStepMs,
    totalMs: performance.now() - t0,
    nodeCount,
    liveTensorsAfter,
    checkpoints,
    workersSpawned: counters.workersSpawned,
    ortWarnings: consoleLines
      .filter((l) => /\[W:onnxruntime/.test(l))
      .map((l) => l.replace(/\x1b\[[0-9;]*m/g, '').slice(0, 300)),
    placements,
    control,
    parity,
  };
}

self.onmessage = (e: MessageEvent<HarnessRequest>) => {
  main(e.data).then(
    (result) => post({ type: 'result', result }),
    (err: unknown) =>
      post({ type: 'error', message: message(err), stack: err instanceof Error ? err.stack : undefined }),
  );
};
