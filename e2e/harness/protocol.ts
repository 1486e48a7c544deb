import type { AdapterSummary } from '../../src/engine/select-backend.ts';

/** What the harness page asks its worker to do (read from the page's URL). */
export interface HarnessRequest {
  /** train: N steps and the losses; soak: N steps with leak checkpoints; placement: verbose ORT logs + a CPU-only control graph. */
  mode: 'train' | 'soak' | 'placement';
  backend: 'webgpu' | 'wasm' | null;
  steps: number;
  /** Soak: checkpoint every this many steps. */
  every: number;
  /** Placement mode: the op of the CPU-only control graph. */
  cpuOp: string;
}

export interface Checkpoint {
  step: number;
  /** Backend.liveTensors(): GPU tensors created by runs and not yet disposed. */
  liveTensors: number;
  /** GPUBuffers created and not destroyed, counted on GPUDevice.createBuffer / GPUBuffer.destroy. */
  liveGpuBuffers: number;
  liveGpuBytes: number;
  loss: number;
  elapsedMs: number;
}

export interface ControlGraphResult {
  op: string;
  /** Log lines seen while creating the control session. */
  logs: string[];
  error?: string;
}

export interface HarnessResult {
  request: HarnessRequest;
  backend: { kind: string; description: string; reason: string; threads: number; crossOriginIsolated: boolean };
  /** Adapter select-backend probed, and the adapter of the GPUDevice ORT actually used. */
  adapter: AdapterSummary | null;
  adapterInUse: AdapterSummary | null;
  losses: number[];
  stepMs: number[];
  sessionMs: number;
  totalMs: number;
  nodeCount: number;
  liveTensorsAfter: number;
  checkpoints: Checkpoint[];
  /** Worker constructors called inside our worker (ORT's WASM pthreads). */
  workersSpawned: number;
  /** Lines ORT printed while the training session was created (placement mode). */
  placementLogs: string[];
  control?: ControlGraphResult;
}

export type WorkerMessage =
  | { type: 'log'; level: string; text: string }
  | { type: 'progress'; step: number; loss: number }
  | { type: 'result'; result: HarnessResult }
  | { type: 'error'; message: string; stack?: string };
