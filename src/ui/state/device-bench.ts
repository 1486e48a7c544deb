/**
 * Measures GRPO steps on this device: for each backend a fresh trainer worker (the app's own,
 * workers/trainer.worker.ts, so the numbers are those of a real training run) is set up with the
 * current setup, forced onto that backend, runs WARMUP_STEPS, then the measured steps, and is ended.
 * One worker per backend because ONNX Runtime's settings are global to a worker.
 */
import { probeWebGpu, type AdapterSummary } from '../../engine/select-backend.ts';
import type { InitRequest, InitResult } from '../../../workers/protocol.ts';
import { WARMUP_STEPS, type BackendRun, type BenchKind, type StepTiming } from '../derive/bench-report.ts';
import { TrainerClient } from './worker-client.ts';

export interface BenchProgress {
  kind: BenchKind;
  /** 'loading' the model, a 'warmup' step, or a 'measure'd step (`done` of `total` finished). */
  phase: 'loading' | 'warmup' | 'measure';
  done: number;
  total: number;
}

export interface WebGpuPlan {
  adapter: AdapterSummary | null;
  /** Whether WebGPU will be measured; when not, `note` says why. */
  run: boolean;
  note: string | null;
}

/**
 * WebGPU is measured on a hardware adapter. A software one (SwiftShader) is about 100x slower than
 * WASM and says nothing about GPUs, so it is measured only when forced with `?backend=webgpu`.
 */
export async function planWebGpu(forced: 'webgpu' | 'wasm' | null): Promise<WebGpuPlan> {
  const probe = await probeWebGpu();
  const a = probe.adapter;
  if (!a) return { adapter: null, run: false, note: `WebGPU is unavailable: ${probe.error ?? 'no adapter'}` };
  if (a.software && forced !== 'webgpu') {
    return {
      adapter: a,
      run: false,
      note:
        'the only WebGPU adapter is a software one, which ' +
        'says nothing about GPU speed; add ?backend=webgpu ' +
        'to the URL to measure it anyway',
    };
  }
  return { adapter: a, run: true, note: null };
}

export interface BackendResult {
  run: BackendRun;
  init: InitResult;
  /** The adapter ONNX Runtime used (WebGPU only). */
  adapter: AdapterSummary | null;
}

/** Sets up `request` on `kind` in a new worker, runs the warm-up and `steps` measured steps. */
export async function measureBackend(
  kind: BenchKind,
  request: InitRequest,
  steps: number,
  onProgress: (p: BenchProgress) => void,
): Promise<BackendResult> {
  const client = new TrainerClient(
    `bench-${kind}`,
    () => undefined,
    () => undefined,
  );
  try {
    onProgress({ kind, phase: 'loading', done: 0, total: steps });
    // No held-out evaluation inside the timed steps, no step budget, nothing restored.
    const init = await client.call((a) =>
      a.init({
        config: { ...request.config, eval_every: 0 },
        ...(request.appDefaults ? { appDefaults: request.appDefaults } : {}),
        ...(request.preset ? { preset: request.preset } : {}),
        checkpoint: request.checkpoint,
        backend: kind,
        // The run's own WASM threads (src/engine/wasm-threads.ts), so the figures are the run's.
        ...(request.threads ? { threads: request.threads } : {}),
        stepBudget: 0,
      }),
    );
    const step = async (): Promise<StepTiming> => {
      const t0 = performance.now();
      const m = await client.call((a) => a.stepOnce());
      return {
        seconds: (performance.now() - t0) / 1000,
        sampling: m['time/sampling'] ?? NaN,
        update: m['time/update'] ?? NaN,
      };
    };
    const warmup: StepTiming[] = [];
    for (let i = 0; i < WARMUP_STEPS; i++) {
      onProgress({ kind, phase: 'warmup', done: i, total: WARMUP_STEPS });
      warmup.push(await step());
    }
    const measured: StepTiming[] = [];
    for (let i = 0; i < steps; i++) {
      onProgress({ kind, phase: 'measure', done: i, total: steps });
      measured.push(await step());
    }
    onProgress({ kind, phase: 'measure', done: steps, total: steps });
    const adapter = kind === 'webgpu' ? await client.call((a) => a.adapterInUse()).catch(() => null) : null;
    return {
      run: { kind, description: init.backend.description, threads: init.backend.threads, warmup, steps: measured },
      init,
      adapter,
    };
  } finally {
    client.dispose();
  }
}
