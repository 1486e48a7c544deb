/**
 * The "Benchmark this device" result: per-backend step times summarised (median, steps per second),
 * the WebGPU/WASM ratio, and the JSON file people download and share. Pure: no DOM, no workers
 * (device-bench.ts measures, components/BenchmarkPanel.tsx shows).
 */
import type { AdapterSummary } from '../../engine/select-backend.ts';
import type { ModelConfig } from '../../model/config.ts';

export type BenchKind = 'wasm' | 'webgpu';

/** Measured steps per backend when the URL does not say (`?bench_steps=N`), and the bounds of N. */
export const DEFAULT_BENCH_STEPS = 5;
export const MAX_BENCH_STEPS = 50;
/** Steps run before the measured ones: they compile the graphs and warm the caches. */
export const WARMUP_STEPS = 1;

/** One GRPO step as the trainer timed it, plus the wall time the page saw around it. */
export interface StepTiming {
  /** Wall time from the page's request to the worker's answer. */
  seconds: number;
  sampling: number;
  update: number;
}

export interface BackendRun {
  kind: BenchKind;
  /** The backend as the trainer describes it ("WASM, 4 threads", "WebGPU (nvidia ampere)"). */
  description: string;
  threads: number;
  warmup: StepTiming[];
  steps: StepTiming[];
}

export interface BackendSummary {
  backend: string;
  threads: number;
  warmup_seconds: number[];
  step_seconds: number[];
  sampling_seconds: number[];
  update_seconds: number[];
  median_step_seconds: number;
  median_sampling_seconds: number;
  median_update_seconds: number;
  steps_per_second: number;
}

export function median(xs: number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Significant digits, so a tiny ratio (a software adapter) does not round to 0. */
const round = (x: number, digits = 4) => Number(x.toPrecision(digits));

export function summarise(run: BackendRun): BackendSummary {
  if (!run.steps.length) throw new Error(`${run.kind}: no measured steps to summarise`);
  const bad = run.steps.find((s) => !(Number.isFinite(s.seconds) && s.seconds > 0));
  if (bad) throw new Error(`${run.kind}: a step took ${bad.seconds} s, which is not a positive time`);
  const med = median(run.steps.map((s) => s.seconds));
  return {
    backend: run.description,
    threads: run.threads,
    warmup_seconds: run.warmup.map((s) => round(s.seconds)),
    step_seconds: run.steps.map((s) => round(s.seconds)),
    sampling_seconds: run.steps.map((s) => round(s.sampling)),
    update_seconds: run.steps.map((s) => round(s.update)),
    median_step_seconds: round(med),
    median_sampling_seconds: round(median(run.steps.map((s) => s.sampling))),
    median_update_seconds: round(median(run.steps.map((s) => s.update))),
    steps_per_second: round(1 / med),
  };
}

/** How many times as many steps per second WebGPU does as WASM (above 1: WebGPU is faster); null without both. */
export function webgpuOverWasm(wasm: BackendSummary | null, webgpu: BackendSummary | null): number | null {
  if (!wasm || !webgpu) return null;
  return round(webgpu.steps_per_second / wasm.steps_per_second, 3);
}

export interface DeviceBenchReport {
  kind: 'rlvr-device-benchmark';
  version: 1;
  date: string;
  browser: { user_agent: string; hardware_concurrency: number | null; cross_origin_isolated: boolean };
  /** The WebGPU adapter (the one ONNX Runtime used when WebGPU ran), or null. */
  adapter: AdapterSummary | null;
  /** Why WebGPU was not measured (no WebGPU, no adapter, only a software adapter, an error), else null. */
  webgpu_note: string | null;
  model: { name: string; parameters: number; config: ModelConfig };
  task: string;
  batch: { prompts_per_step: number; num_generations: number; rows: number; max_completion_length: number };
  warmup_steps: number;
  measured_steps: number;
  wasm: BackendSummary | { skipped: string };
  webgpu: BackendSummary | { skipped: string };
  webgpu_over_wasm: number | null;
}

export interface ReportInput {
  date: Date;
  browser: DeviceBenchReport['browser'];
  adapter: AdapterSummary | null;
  webgpuNote: string | null;
  model: DeviceBenchReport['model'];
  task: string;
  batch: Omit<DeviceBenchReport['batch'], 'rows'>;
  warmupSteps: number;
  measuredSteps: number;
  runs: Partial<Record<BenchKind, BackendRun>>;
  skipped: Partial<Record<BenchKind, string>>;
}

export function buildReport(r: ReportInput): DeviceBenchReport {
  const s = (k: BenchKind) => (r.runs[k] ? summarise(r.runs[k]) : null);
  const wasm = s('wasm');
  const webgpu = s('webgpu');
  const skipped = (k: BenchKind) => ({ skipped: r.skipped[k] ?? 'not run' });
  return {
    kind: 'rlvr-device-benchmark',
    version: 1,
    date: r.date.toISOString(),
    browser: r.browser,
    adapter: r.adapter,
    webgpu_note: r.webgpuNote,
    model: r.model,
    task: r.task,
    batch: { ...r.batch, rows: r.batch.prompts_per_step * r.batch.num_generations },
    warmup_steps: r.warmupSteps,
    measured_steps: r.measuredSteps,
    wasm: wasm ?? skipped('wasm'),
    webgpu: webgpu ?? skipped('webgpu'),
    webgpu_over_wasm: webgpuOverWasm(wasm, webgpu),
  };
}

/**
 * `?bench=1` opens the panel; `?bench_steps=N` sets the measured steps per backend (read by
 * src/ui/derive/url-state.ts, the one table of URL keys).
 */
export interface BenchUrl {
  open: boolean;
  steps: number;
  /** What was wrong with bench_steps, if anything. */
  note: string | null;
}

/** "NVIDIA ampere (NVIDIA GeForce RTX 3080)", plus "software" for SwiftShader and the like. */
export function adapterLine(a: AdapterSummary): string {
  const name = [a.vendor, a.architecture].filter(Boolean).join(' ') || 'unnamed adapter';
  const extra = [a.description, a.device].filter((x) => x && !name.includes(x));
  return `${name}${extra.length ? ` (${extra.join(', ')})` : ''}${a.software ? ', a software adapter' : ''}`;
}
