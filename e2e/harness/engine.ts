// The harness page: parses the URL, runs the engine in a module worker, and exposes the outcome on
// `window.__engine` for Playwright (e2e/engine.spec.mjs) and on screen for people.
import type { HarnessRequest, HarnessResult, WorkerMessage } from './protocol.ts';
import type { WebBackendKind } from '../../src/engine/select-backend.ts';

export interface EngineHarnessState {
  done: boolean;
  result: HarnessResult | null;
  error: string | null;
  logs: { level: string; text: string }[];
  progress: { step: number; loss: number }[];
}

declare global {
  interface Window {
    __engine: EngineHarnessState;
  }
}

const params = new URLSearchParams(location.search);
/** `?backend=webgpu|wasm`; anything else means "choose" (this harness page's own query, not the app's). */
const forced = params.get('backend')?.trim().toLowerCase();
const mode = (params.get('mode') ?? 'train') as HarnessRequest['mode'];
const req: HarnessRequest = {
  mode,
  backend: forced === 'webgpu' || forced === 'wasm' ? (forced as WebBackendKind) : null,
  steps: Number(params.get('steps') ?? (mode === 'soak' ? 300 : 20)),
  every: Number(params.get('every') ?? 50),
  cpuOp: params.get('cpuOp') ?? 'Det',
};

const state: EngineHarnessState = { done: false, result: null, error: null, logs: [], progress: [] };
window.__engine = state;
const statusEl = document.getElementById('status')!;
const out = document.getElementById('out')!;
statusEl.textContent = `running ${JSON.stringify(req)} (crossOriginIsolated=${crossOriginIsolated})`;

const worker = new Worker(new URL('./engine.worker.ts', import.meta.url), { type: 'module', name: 'engine-harness' });
worker.onmessage = (e: MessageEvent<WorkerMessage>) => {
  const m = e.data;
  if (m.type === 'log') state.logs.push({ level: m.level, text: m.text });
  else if (m.type === 'progress') {
    state.progress.push({ step: m.step, loss: m.loss });
    statusEl.textContent = `step ${m.step}/${req.steps}: loss ${m.loss.toFixed(5)}`;
  } else if (m.type === 'result') {
    state.result = m.result;
    state.done = true;
    statusEl.textContent =
      `done: ${m.result.backend.description} — ` +
      (req.mode === 'placement'
        ? `${m.result.placements.length} graphs + control`
        : req.mode === 'parity'
          ? `sampler vs scorer max |Δ logp| ${m.result.parity?.maxLogpDiff.toExponential(1)}`
          : `${m.result.losses.length} steps`) +
      ' ' +
      `in ${(m.result.totalMs / 1000).toFixed(1)} s`;
    out.textContent = summary(m.result);
  } else {
    state.error = m.message + (m.stack ? `\n${m.stack}` : '');
    state.done = true;
    statusEl.textContent = `error: ${m.message}`;
  }
};
worker.onerror = (e) => {
  state.error = `worker error: ${e.message}`;
  state.done = true;
  statusEl.textContent = state.error;
};
worker.postMessage(req);

/** A readable summary for people and screenshots (the full result is on window.__engine). */
function summary(r: HarnessResult): string {
  const a = r.adapterInUse ?? r.adapter;
  const lines = [
    `backend      ${r.backend.description}`,
    `reason       ${r.backend.reason}`,
    `isolation    crossOriginIsolated=${r.backend.crossOriginIsolated}` +
      `, WASM threads ${r.backend.threads}, pthread ` +
      `workers started ${r.workersSpawned}`,
    'adapter      ' +
      (a ? `${a.vendor} ${a.architecture} ${a.description}`.trim() + (a.software ? ' (software)' : '') : 'none'),
  ];
  if (r.losses.length) {
    const rest = r.stepMs.slice(1).sort((x, y) => x - y);
    lines.push(
      `steps        ${r.losses.length} (graph: ${r.nodeCount} nodes)`,
      `loss         ${r.losses[0]!.toFixed(5)} -> ${r.losses.at(-1)!.toFixed(5)}`,
      `time         first step ${(r.firstStepMs / 1000).toFixed(1)} ` +
        `s, then median ${(rest[Math.floor(rest.length / 2)] ?? 0).toFixed(0)} ` +
        `ms/step, total ${(r.totalMs / 1000).toFixed(1)} s`,
      `leaks        live GPU tensors after the run: ${r.liveTensorsAfter}`,
    );
  }
  for (const c of r.checkpoints) {
    lines.push(
      `  step ${String(c.step).padStart(4)}: ${c.liveTensors} ` +
        `live GPU tensors, ${c.liveGpuBuffers} GPUBuffers (` +
        `${c.liveGpuBytes} B), loss ${c.loss.toFixed(4)}`,
    );
  }
  for (const g of [...r.placements, ...(r.control ? [r.control] : [])]) {
    const eps = Object.entries(g.placement.eps).map(
      ([ep, v]) => `${ep} ${v.count}${ep === 'CPUExecutionProvider' ? ` [${v.nodes.join(', ')}]` : ''}`,
    );
    lines.push(`placement    ${g.graph}: ${g.error ? `ERROR ${g.error}` : eps.join('; ') || 'no report'}`);
  }
  for (const w of r.ortWarnings.slice(0, 5)) lines.push(`ORT warning  ${w}`);
  return lines.join('\n');
}
