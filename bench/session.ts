/** The state one `rlvr bench` run shares between its phases (src/cli/commands/bench.ts runs them in order). */
import type { ModelConfig } from '../src/model/config.ts';
import type { RunConfig } from '../src/rl/config.ts';
import type { BrowserBench } from './browser/driver.ts';
import type { BrowserEngine, Engine, PresetCtx } from './engines.ts';
import type { CheckResult, Metric, PresetSetup, Sample } from './presets.ts';
import type { TorchPeer } from './torch.ts';

/** The flags, read and checked (src/cli/commands/bench.ts). */
export interface BenchOptions {
  quick: boolean;
  /** The playground's GPT-2 presets, in --presets order. */
  presets: ('tiny' | 'small')[];
  /** The Llama presets (bench/llama.ts), after them. */
  llamaPresets: LlamaPresetId[];
  engines: Set<string>;
  threadList: number[];
  reps: number;
  gpuReps: number;
  gpuRows: number;
  /** Seconds after which no round is added (Infinity: none). */
  budget: number;
  outFile: string;
  wantProfile: boolean;
  noProfile: boolean;
  /** Write the report into docs/measured.md's bench block. */
  readme: boolean;
  /** The Llama presets' hidden layers: all of them (undefined), or their first N (a quick form, `--layers`). */
  llamaLayers?: number;
  /** The Llama presets' Policy.residentKinds (`--resident`): undefined keeps each backend's default. */
  resident?: string[];
}

export interface Machine {
  cpu: string;
  cores: number;
  memory_gib: number;
  load_average_start: number[];
  load_average_end: number[];
  load_average_1min_median_during_run: number;
}

export interface Bench {
  argv: string[];
  opts: BenchOptions;
  /** performance.now() at the start: the time budget counts from here. */
  t0: number;
  elapsed(): number;
  /** Progress on stderr (stdout carries the markdown table). */
  log(s: string): void;
  machine: Machine;
  /** 1-minute load averages sampled during the run. */
  loads: number[];
  /** What was left out, and why (time budget, --quick). */
  skipped: string[];
  /** PyTorch peers by thread count. */
  peers: Map<number, TorchPeer>;
  browser: BrowserBench | null;
  browserInfo: Record<string, unknown>;
  wasmThreads: number;
  torchInfo: Record<string, unknown>;
  /**
   * GFLOP/s of one MLP-shaped matmul per thread count: ours on Node (MLAS), the peer's (OpenBLAS), the browser's WASM
   * (at its thread count); null when not run. See gemm.ts.
   */
  gemm: { threads: number; mlas: number; openblas: number | null; wasm: number | null }[];
  /** torch uses an optimised BLAS; ratios against a slow one would flatter us. */
  blasOk: boolean;
  /** The preset whose CPU engines are timing now (the engines read its batch). */
  ctxRef: { current: PresetCtx | null };
  runs: PresetRun[];
  /** The Llama presets' runs (bench/llama.ts). */
  llamaRuns: LlamaRun[];
}

export interface PresetRun {
  id: 'tiny' | 'small';
  pi: number;
  setup: PresetSetup;
  config: RunConfig;
  params: number;
  rows: number;
  threadsHere: number[];
  ctx: PresetCtx;
  check: CheckResult | null;
  engines: Engine[];
  samples: Map<string, Record<Metric, Sample[]>>;
  firstRun: Record<string, number>;
  browserChecks: Record<string, number>;
  gpu: boolean;
  /**
   * The WebGPU engine's load and warm-up (compiles shaders), started early so it overlaps the next preset's untimed
   * set-up.
   */
  gpuWarm?: Promise<BrowserEngine>;
}

/** The Llama presets of bench/llama.ts. */
export type LlamaPresetId = 'smollm2-135m';

/** One measured call: seconds, tokens and the engine process's resident set before it and its peak during it (MiB). */
export interface LlamaSample {
  s: number;
  tokens: number;
  rss_before_mib: number | null;
  peak_rss_mib: number | null;
}

/**
 * A Llama preset's check on the first update: ok when log-probs and loss agree within TOLERANCE and gradient norms
 * within 1e-3 relative.
 */
export interface LlamaCheck {
  ok: boolean;
  max_abs_logp_diff: number;
  abs_loss_diff: number;
  loss_ours: number;
  loss_torch: number;
  grad_norm_ours: number;
  grad_norm_torch: number;
  tokens_compared: number;
}

/** One Llama preset's run (bench/llama.ts). */
export interface LlamaRun {
  id: LlamaPresetId;
  model: ModelConfig;
  parameters: number;
  trainable: number;
  shape: {
    prompts: number;
    generations: number;
    promptLen: number;
    completionLen: number;
    rows: number;
    update_tokens: number;
  };
  engines: Record<string, { label: string; threads: number; sampling: LlamaSample[]; update: LlamaSample[] }>;
  checks: Record<string, LlamaCheck>;
  first_run_ms: Record<string, number>;
  skipped: string[];
  peer: Record<string, unknown> | null;
  /** The matmul kernels at the preset's shapes, per thread count (llama-gemm.ts). */
  gemm: LlamaGemm[];
}

/** GFLOP/s of one llamaGemms shape (gemm.ts) per engine at a thread count; null where the engine was not run. */
export interface LlamaGemm {
  threads: number;
  m: number;
  k: number;
  n: number;
  what: string;
  mlas: number;
  torch: number | null;
  wasm: number | null;
}
