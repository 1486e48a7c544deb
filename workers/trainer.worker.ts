/// <reference lib="webworker" />
/**
 * The trainer worker: a thin Comlink shell over TrainingSession (workers/training-session.ts), which
 * holds all the logic. Binary results (checkpoints, snapshots) are transferred, not copied.
 */
import * as Comlink from 'comlink';
import { chooseBackend } from '../src/engine/select-backend.ts';
import type { WebBackendKind } from '../src/engine/select-backend.ts';
import type { InitRequest, RunConfig, SaveTarget, ScoreTextRequest, SessionEvent, TryRequest } from './protocol.ts';
import { openStore, saveRun } from './run-store.ts';
import { TrainingSession } from './training-session.ts';

/** CSP violations in this worker (the page's listener cannot see them): read by the e2e CSP test. */
const cspViolations: string[] = [];
self.addEventListener('securitypolicyviolation', (e) => {
  const v = e as SecurityPolicyViolationEvent;
  cspViolations.push(`${v.violatedDirective} ${v.blockedURI} ${v.sourceFile}:${v.lineNumber}`);
});

/** The GPUDevice ORT created (once a WebGPU session exists), watched for loss. */
interface GpuDeviceLike {
  lost: Promise<{ reason?: string; message?: string }>;
  destroy(): void;
}
let watchedDevice: GpuDeviceLike | null = null;

/** ORT's WebGPU device, if it has made one (the same module instance backend-web.ts configured). */
async function ortDevice(): Promise<GpuDeviceLike | null> {
  const ort = await import('onnxruntime-web/webgpu');
  return ((await (ort.env.webgpu as { device?: unknown }).device) as GpuDeviceLike | undefined) ?? null;
}

const session: TrainingSession = new TrainingSession({
  createBackend: (forced: WebBackendKind | null, threads?: number) =>
    chooseBackend(forced, threads ? { numThreads: threads } : {}),
  afterEngineUse(backend) {
    if (backend.kind !== 'webgpu') return;
    void ortDevice().then((device) => {
      if (!device || device === watchedDevice) return;
      watchedDevice = device;
      void device.lost.then((info) => session.deviceLost(info.message || info.reason || 'unknown reason'));
    });
  },
  async fetchBytes(url: string) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`);
    return new Uint8Array(await res.arrayBuffer());
  },
  // The worker writes its tab's saved run itself (workers/run-saver.ts): no round trip through the page.
  writeRun: saveRun,
});

const api = {
  init: (req: InitRequest) => session.init(req),
  subscribe: (cb: (events: SessionEvent[]) => void) => session.subscribe(cb),
  start: () => session.start(),
  pause: () => session.pause(),
  stepOnce: () => session.stepOnce(),
  warmStart: (opts: { steps: number; lr?: number; batchSize?: number }) => session.warmStart(opts),
  cancelWarmStart: () => session.cancelWarmStart(),
  stop: () => session.stop(),
  reset: () => session.reset(),
  setStepBudget: (n: number) => session.setStepBudget(n),
  updateConfig: (patch: Partial<RunConfig>) => session.updateConfig(patch),
  status: () => session.status(),
  adapterInUse: () => session.adapterInUse(),
  rolloutSteps: () => session.rolloutSteps(),
  getRollouts: (step: number) => session.getRollouts(step),
  metricsHistory: () => session.metricsHistory(),
  evaluatePassAtK: (opts?: { n?: number; prompts?: number }) => session.evaluatePassAtK(opts),
  cancelPassK: () => session.cancelPassK(),
  async saveCheckpoint() {
    const c = await session.saveCheckpoint();
    return Comlink.transfer(c, [c.bytes.buffer]);
  },
  async runRecord(opts?: { weights?: boolean }) {
    const bytes = await session.runRecord(opts);
    return Comlink.transfer(bytes, [bytes.buffer]);
  },
  loadCheckpoint: (bytes: Uint8Array, manifest: unknown, name?: string) =>
    session.loadCheckpoint(bytes, manifest, name),
  tryPrompt: (req: TryRequest) => session.tryPrompt(req),
  scoreText: (req: ScoreTextRequest) => session.scoreText(req),
  saveTo(target: SaveTarget | null, everySteps?: number) {
    session.saveTo(target, everySteps);
    if (target) void openStore().catch(() => undefined); // a failure is reported by the first save
  },
  saveNow: (force?: boolean) => session.saveNow(force),
  async snapshot() {
    const s = await session.snapshot();
    return Comlink.transfer(s, [
      s.base.bytes.buffer,
      s.current.bytes.buffer,
      s.current.optimizer.m.buffer,
      s.current.optimizer.v.buffer,
    ]);
  },
};

export type TrainerWorkerApi = typeof api;

/**
 * TEST ONLY: hooks the e2e tests call with `worker.evaluate(...)` (Playwright) to cause faults that
 * cannot be triggered from outside: destroying ORT's WebGPU device (a simulated device loss: the
 * same `device.lost` path a driver reset takes) and poisoning the next steps with NaN rewards.
 */
(self as unknown as { __rlvrTest: unknown }).__rlvrTest = {
  async loseDevice(): Promise<boolean> {
    const device = await ortDevice();
    device?.destroy();
    return device !== null;
  },
  injectNonFinite: (steps: number) => session.debugInjectNonFinite(steps),
  cspViolations: () => cspViolations.slice(),
  /** The session's memory probe plus this worker's JS heap (Chromium's performance.memory, where it exists). */
  memory: () => ({
    ...session.memoryProbe(),
    jsHeapUsed: (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? null,
  }),
};

Comlink.expose(api);
