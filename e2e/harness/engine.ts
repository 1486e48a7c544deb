// The harness page: parses the URL, runs the engine in a module worker, and exposes the outcome on
// `window.__engine` for Playwright (e2e/engine.e2e.mjs) and on screen for people.
import type { HarnessRequest, HarnessResult, WorkerMessage } from './protocol.ts';
import { backendFromUrl } from '../../src/engine/select-backend.ts';

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
const mode = (params.get('mode') ?? 'train') as HarnessRequest['mode'];
const req: HarnessRequest = {
  mode,
  backend: backendFromUrl(location.search),
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
    statusEl.textContent = `done: ${m.result.backend.description} — ${m.result.losses.length} steps in ${(m.result.totalMs / 1000).toFixed(1)} s`;
    out.textContent = JSON.stringify({ ...m.result, placements: m.result.placements.map((p) => ({ graph: p.graph, eps: Object.fromEntries(Object.entries(p.placement.eps).map(([k, v]) => [k, v.count])) })) }, null, 2);
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
