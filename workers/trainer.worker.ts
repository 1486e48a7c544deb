/// <reference lib="webworker" />
/**
 * The trainer worker: a thin Comlink shell over TrainingSession (workers/training-session.ts), which
 * holds all the logic. Binary results (checkpoints, snapshots) are transferred, not copied.
 */
import * as Comlink from 'comlink';
import { chooseBackend } from '../src/engine/select-backend.ts';
import type { WebBackendKind } from '../src/engine/select-backend.ts';
import type { InitRequest, RunConfig, SessionEvent } from './protocol.ts';
import { TrainingSession } from './training-session.ts';

const session = new TrainingSession({
  createBackend: (forced: WebBackendKind | null) => chooseBackend(forced),
  async fetchBytes(url: string) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`);
    return new Uint8Array(await res.arrayBuffer());
  },
});

const api = {
  init: (req: InitRequest) => session.init(req),
  subscribe: (cb: (events: SessionEvent[]) => void) => session.subscribe(cb),
  start: () => session.start(),
  pause: () => session.pause(),
  stepOnce: () => session.stepOnce(),
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
  async saveCheckpoint() {
    const c = await session.saveCheckpoint();
    return Comlink.transfer(c, [c.bytes.buffer]);
  },
  loadCheckpoint: (bytes: Uint8Array, manifest: unknown, name?: string) => session.loadCheckpoint(bytes, manifest, name),
  async snapshot() {
    const s = await session.snapshot();
    return Comlink.transfer(s, [s.base.bytes.buffer, s.current.bytes.buffer, s.current.optimizer.m.buffer, s.current.optimizer.v.buffer]);
  },
};

export type TrainerWorkerApi = typeof api;

Comlink.expose(api);
