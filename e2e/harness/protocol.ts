import type { AdapterSummary } from '../../src/engine/select-backend.ts';
import type { Placement } from './graphs.ts';
import type { Parity } from '../../src/model/parity.ts';

/** What the harness page asks its worker to do (read from the page's URL). */
export interface HarnessRequest {
  /**
   * train: the tiny training graph for `steps` steps, losses out;
   * soak: the same with leak checkpoints every `every` steps;
   * placement: sessions for every app graph at ORT log severity VERBOSE, node placements parsed,
   * plus a control graph with an op (`cpuOp`) the WebGPU EP lacks;
   * parity: the policy's KV-cache sampler against its full-recompute scoring graph (src/model/parity.ts).
   */
  mode: 'train' | 'soak' | 'placement' | 'parity';
  backend: 'webgpu' | 'wasm' | null;
  steps: number;
  every: number;
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

export interface GraphPlacement {
  graph: string;
  nodeCount: number;
  placement: Placement;
  createMs: number;
  /** Log lines around the placement report (for the test's failure message). */
  excerpt: string[];
  error?: string;
  /** Control graph only: the value computed (shows the CPU-placed node really ran). */
  value?: number;
}

export interface HarnessResult {
  request: HarnessRequest;
  backend: { kind: string; description: string; reason: string; threads: number; crossOriginIsolated: boolean };
  /** Adapter select-backend probed, and the adapter of the GPUDevice ORT actually used. */
  adapter: AdapterSummary | null;
  adapterInUse: AdapterSummary | null;
  losses: number[];
  stepMs: number[];
  /** Until the first step's loss was read: ORT init, session creation, (WebGPU) shader compilation. */
  firstStepMs: number;
  totalMs: number;
  nodeCount: number;
  liveTensorsAfter: number;
  checkpoints: Checkpoint[];
  /** Worker constructors called inside our worker (ORT's WASM pthreads). */
  workersSpawned: number;
  /** ORT's default-severity warnings seen (e.g. "Some nodes were not assigned ..."). */
  ortWarnings: string[];
  placements: GraphPlacement[];
  control: GraphPlacement | null;
  parity: Parity | null;
}

export type WorkerMessage =
  | { type: 'log'; level: string; text: string }
  | { type: 'progress'; step: number; loss: number }
  | { type: 'result'; result: HarnessResult }
  | { type: 'error'; message: string; stack?: string };
