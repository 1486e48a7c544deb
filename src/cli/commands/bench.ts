import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { OrtBackend, type OrtModule } from '../../engine/backend.ts';
import { createNodeBackend } from '../../engine/backend-node.ts';
import { modelPresets, type ModelConfig } from '../../model/config.ts';
import { saveWeights } from '../../model/checkpoint.ts';
import { readSafetensors } from '../../model/safetensors.ts';
import type { Weights } from '../../model/policy.ts';
import { initParams, parameterCount } from '../../model/transformer.ts';
import type { RunConfig } from '../../rl/config.ts';
import { checkKnownFlags, flag, intFlag, parseArgs, UsageError } from '../args.ts';
import { readCheckpoint } from '../checkpoint-files.ts';
import { BenchRunner, benchRunConfig, makeUpdateBatch, samplingBatch, sliceBatch, type CheckValues, type UpdateBatch } from '../../../bench/core.ts';
import { ensureTorch, TorchPeer } from '../../../bench/torch.ts';
import type { BrowserBench } from '../../../bench/browser/driver.ts';
import type { Command } from './command.ts';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const BENCH = join(ROOT, 'bench');
const WORK = join(BENCH, '.work');
const TINY_MANIFEST = join(ROOT, 'public/checkpoints/arithmetic-tiny/manifest.json');
const TOLERANCE = 1e-4;

const help = `rlvr bench [--quick] [flags]
Measures one GRPO step at the default batch size (on arithmetic, P=8 prompts x G=8 completions = 64 rows,
48-token cap) on onnxruntime-node, on Chromium's WASM and WebGPU EPs (headless; bench/browser/), and
on a PyTorch eager CPU peer (bench/torch_peer.py: Debian's python3-torch with OpenBLAS, installed with
apt-get when missing) with the same weights from the same safetensors file and the same inputs, runs
of the engines alternating:
  sampling  tokens/s generating the 64 completions with the KV cache
  update    tokens/s of one GRPO update (scoring + loss + backward + AdamW) on a fixed batch
  step      seconds per GRPO step (sample + verify + update)
It first checks that ours and PyTorch compute the same log-probs and loss (within ${TOLERANCE}) and
prints no ratio otherwise. Writes bench/results.json and prints a markdown table (stdout; progress on stderr).
  --quick            a time budget of 170 s (see --budget): tiny preset on node/torch/WASM (up to 3
                     rounds), small preset on node/torch (1 round), then WebGPU on tiny if time is left
  --presets LIST     tiny,small (default both; tiny is the CPU default, small the WebGPU one)
  --engines LIST     node,torch,wasm,webgpu (default all)
  --threads LIST     CPU thread counts for onnxruntime-node and PyTorch (default 2,1: 2 = the cores is
                     the headline; 1 because on a busy machine both run faster on one thread)
  --reps N           timed rounds per preset (default 5, --quick 3)
  --webgpu-reps N    WebGPU rounds (default 1)
  --webgpu-rows N    rows of the WebGPU runs (default 8 = 1 prompt x 8; 64 = the full batch, which takes
                     tens of minutes on SwiftShader, the software adapter of a machine without a GPU)
  --budget S         stop adding rounds (and skip WebGPU) when S seconds are used (default: none; --quick 170)
  --profile          profile onnxruntime-node per op (ORT enableProfiling); also done, outside --quick,
                     when a target is missed; --no-profile never
  --out FILE         results file (default bench/results.json)`;

type Metric = 'sampling' | 'update' | 'step';
const METRICS: Metric[] = ['sampling', 'update', 'step'];

interface Sample {
  /** Seconds the measurement took. */
  s: number;
  /** Tokens it processed (sampling: rows x decode positions; update: completion tokens; step: sampled tokens). */
  tokens: number;
  extra?: Record<string, number>;
}

interface Stat {
  median: number;
  min: number;
  max: number;
  n: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const stat = (xs: number[]): Stat | null => (xs.length ? { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length } : null);

function version(pkg: string): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function dpkgVersion(pkg: string): string {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'not installed';
}

interface PresetSetup {
  id: 'tiny' | 'small';
  model: ModelConfig;
  weights: Weights;
  weightsFile: string;
  source: string;
  difficulty: Record<string, number | string>;
}

/** tiny: the shipped checkpoint; small: no checkpoint ships, so seeded initial weights saved once to bench/.work/. */
function presetSetup(id: 'tiny' | 'small'): PresetSetup {
  const { manifest, weights } = readCheckpoint(TINY_MANIFEST);
  const difficulty = manifest.tasks.find((t) => t.task === 'arithmetic')?.difficulty ?? {};
  if (id === 'tiny') return { id, model: manifest.model, weights, weightsFile: join(ROOT, 'public/checkpoints/arithmetic-tiny', manifest.weights), source: 'public/checkpoints/arithmetic-tiny (shipped, pretrained)', difficulty };
  const model = modelPresets.small;
  const file = join(WORK, 'small-init-seed1.safetensors');
  if (!existsSync(file)) {
    mkdirSync(WORK, { recursive: true });
    writeFileSync(file, saveWeights(model, initParams(model, 1), { name: 'small-init-seed1' }));
  }
  const { tensors } = readSafetensors(new Uint8Array(readFileSync(file)));
  const w: Weights = new Map([...tensors].map(([n, t]) => [n, t.data]));
  return { id, model, weights: w, weightsFile: file, source: 'initParams(modelPresets.small, 1) saved to bench/.work/small-init-seed1.safetensors (no small checkpoint ships)', difficulty };
}

interface CheckResult {
  ok: boolean;
  max_abs_logp_diff: number;
  abs_loss_diff: number;
  loss_ours: number;
  loss_torch: number;
  grad_norm_ours: number;
  grad_norm_torch: number;
  max_abs_entropy_diff: number;
  max_abs_weight_diff_after_update: number;
  pack_matches: boolean;
  tokens_compared: number;
}

interface ProfileSummary {
  what: string;
  ort_runs_per_call: number;
  wall_ms_per_call: number;
  ort_run_ms_per_call: number;
  kernel_ms_per_call: number;
  ort_overhead_ms_per_call: number;
  outside_ort_ms_per_call: number;
  top_ops: { op: string; ms_per_call: number; share: number }[];
  top_nodes: { node: string; op: string; inputs: string; ms_per_call: number; share: number }[];
}

/** Runs ORT with enableProfiling on a separate policy and aggregates the `cat:"Node"` kernel events by op. */
async function profileNode(setup: PresetSetup, config: RunConfig, threads: number, batch: UpdateBatch, log: (s: string) => void): Promise<ProfileSummary[]> {
  const dir = join(WORK, 'profile');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const out: ProfileSummary[] = [];
  for (const what of ['sampling', 'update'] as const) {
    const prefix = join(dir, `${setup.id}-${what}`);
    const backend = new OrtBackend(ort as unknown as OrtModule, 'node', 'onnxruntime-node CPU (profiling)', 'bench --profile', {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      intraOpNumThreads: threads,
      enableProfiling: true,
      profileFilePrefix: prefix,
    });
    const r = await BenchRunner.create(backend, setup.model, setup.weights, config);
    const calls = 3;
    let wall = 0;
    if (what === 'sampling') {
      await r.sample(1);
      for (let i = 0; i < calls; i++) wall += (await r.sample(1)).ms;
    } else {
      r.setBatch(batch);
      await r.update();
      for (let i = 0; i < calls; i++) wall += (await r.update()).ms;
    }
    await r.dispose(); // releasing a session writes its profile
    await new Promise((ok) => setTimeout(ok, 300));
    const files = readdirSync(dir).filter((f) => f.startsWith(`${setup.id}-${what}`) && f.endsWith('.json'));
    if (!files.length) {
      log(`profile: ORT wrote no profile for ${setup.id} ${what}`);
      continue;
    }
    type Ev = { cat?: string; name?: string; ts?: number; dur?: number; args?: { op_name?: string; input_type_shape?: Record<string, number[]>[] } };
    const events = files.flatMap((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Ev[]);
    // Leave out the warm-up call: everything up to the end of its last ORT run.
    const allRuns = events.filter((e) => e.name === 'model_run').sort((x, y) => (x.ts ?? 0) - (y.ts ?? 0));
    const perRunCall = Math.max(1, Math.round(allRuns.length / (calls + 1)));
    const cut = (allRuns[perRunCall - 1]?.ts ?? 0) + (allRuns[perRunCall - 1]?.dur ?? 0);
    const timed = events.filter((e) => (e.ts ?? 0) > cut);
    const runs = timed.filter((e) => e.name === 'model_run').map((e) => e.dur ?? 0);
    const perCall = (us: number) => us / 1000 / calls;
    const byOp = new Map<string, number>();
    const byNode = new Map<string, { us: number; op: string; shapes: string }>();
    let kernels = 0;
    for (const e of timed) {
      if (e.cat !== 'Node' || !e.name?.endsWith('_kernel_time')) continue;
      const op = e.args?.op_name ?? '?';
      byOp.set(op, (byOp.get(op) ?? 0) + (e.dur ?? 0));
      const shapes = (e.args?.input_type_shape ?? []).map((x) => `[${Object.values(x)[0]?.join(',') ?? ''}]`).join(' x ');
      const n = byNode.get(e.name) ?? { us: 0, op, shapes };
      n.us += e.dur ?? 0;
      byNode.set(e.name, n);
      kernels += e.dur ?? 0;
    }
    const ortRun = runs.reduce((a, b) => a + b, 0);
    const wallPerCall = wall / calls;
    out.push({
      what: `${setup.id} ${what}, ${threads} thread${threads === 1 ? '' : 's'}`,
      ort_runs_per_call: Math.round(runs.length / calls),
      wall_ms_per_call: wallPerCall,
      ort_run_ms_per_call: perCall(ortRun),
      kernel_ms_per_call: perCall(kernels),
      ort_overhead_ms_per_call: perCall(ortRun - kernels),
      outside_ort_ms_per_call: wallPerCall - perCall(ortRun),
      top_ops: [...byOp]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([op, us]) => ({ op, ms_per_call: perCall(us), share: us / kernels })),
      top_nodes: [...byNode]
        .sort((a, b) => b[1].us - a[1].us)
        .slice(0, 12)
        .map(([name, n]) => ({ node: name.replace(/_kernel_time$/, ''), op: n.op, inputs: n.shapes, ms_per_call: perCall(n.us), share: n.us / kernels })),
    });
  }
  return out;
}

function fmtNum(x: number): string {
  if (!Number.isFinite(x)) return 'n/a';
  if (x >= 1000) return Math.round(x).toLocaleString('en-US');
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  return x.toFixed(2);
}
const fmtStat = (s: Stat | null) => (s ? `${fmtNum(s.median)} (${fmtNum(s.min)}–${fmtNum(s.max)})` : '—');

/** What every engine of one preset shares. */
interface PresetCtx {
  id: string;
  setup: PresetSetup;
  config: RunConfig;
  batch: UpdateBatch;
  batchFile: string;
  samplingFile: string;
  /** Our node engine's logp/loss/grad norm of the first update on `batch`. */
  ours: CheckValues;
  /** Decode positions the last node sampling run needed (PyTorch generates that many, EOS ignored). */
  positions: number;
  /** The node runner whose trainer's next prompts the PyTorch step uses. */
  primary: BenchRunner;
  stepFiles: number;
}

interface Engine {
  id: string;
  family: 'node' | 'torch' | 'wasm' | 'webgpu';
  threads: number;
  label: string;
  rows: number;
  run(m: Metric, round: number): Promise<Sample>;
  finish(): Promise<void>;
}

class NodeEngine implements Engine {
  family = 'node' as const;
  rows: number;
  constructor(
    readonly runner: BenchRunner,
    readonly threads: number,
    private readonly ctx: { current: PresetCtx | null },
  ) {
    this.rows = runner.config.prompts_per_step * runner.config.num_generations;
  }
  get id() {
    return `node@${this.threads}`;
  }
  get label() {
    return `onnxruntime-node ${version('onnxruntime-node')} CPU, ${this.threads} thread${this.threads === 1 ? '' : 's'}`;
  }
  async run(m: Metric): Promise<Sample> {
    if (m === 'sampling') {
      const x = await this.runner.sample(1);
      this.ctx.current!.positions = x.genSteps;
      return { s: x.ms / 1000, tokens: x.rows * x.genSteps, extra: { kept_tokens: x.tokens, positions: x.genSteps } };
    }
    if (m === 'update') {
      const x = await this.runner.update();
      return { s: x.ms / 1000, tokens: x.tokens };
    }
    const x = await this.runner.step();
    return { s: x.ms / 1000, tokens: x.sampled_tokens, extra: { sampling_s: x.sampling_ms / 1000, update_s: x.update_ms / 1000, accuracy: x.accuracy } };
  }
  async finish() {
    await this.runner.dispose();
  }
}

class TorchEngine implements Engine {
  family = 'torch' as const;
  constructor(
    readonly peer: TorchPeer,
    readonly threads: number,
    readonly torchVersion: string,
    readonly rows: number,
    private readonly ctx: { current: PresetCtx | null },
  ) {}
  get id() {
    return `torch@${this.threads}`;
  }
  get label() {
    return `PyTorch ${this.torchVersion} eager CPU + OpenBLAS, ${this.threads} thread${this.threads === 1 ? '' : 's'}`;
  }
  async run(m: Metric, round: number): Promise<Sample> {
    const c = this.ctx.current!;
    const id = c.id;
    if (m === 'sampling') {
      const x = await this.peer.call({ cmd: 'sample', id, batch: c.samplingFile, steps: c.positions, seed: 1 + round });
      return { s: (x.ms as number) / 1000, tokens: c.batch.rows * (x.steps as number), extra: { positions: x.steps as number } };
    }
    if (m === 'update') {
      const x = await this.peer.call({ cmd: 'update', id, batch: c.batchFile });
      return { s: (x.ms as number) / 1000, tokens: x.tokens as number };
    }
    // The same prompts our trainer takes next, so both sample the same task instances.
    const f = join(WORK, `step-${id}-${this.threads}-${c.stepFiles++}.json`);
    writeFileSync(f, JSON.stringify(c.primary.nextStepBatch()));
    const x = await this.peer.call({ cmd: 'step', id, batch: f, seed: 2000 + round });
    return { s: (x.ms as number) / 1000, tokens: x.sampled_tokens as number, extra: { sampling_s: (x.sampling_ms as number) / 1000, update_s: (x.update_ms as number) / 1000, accuracy: x.accuracy as number } };
  }
  async finish() {}
}

class BrowserEngine implements Engine {
  constructor(
    readonly browser: BrowserBench,
    readonly family: 'wasm' | 'webgpu',
    readonly threads: number,
    readonly label: string,
    readonly rows: number,
    private readonly preset: string,
  ) {}
  get id() {
    return this.family;
  }
  async run(m: Metric): Promise<Sample> {
    const kind = this.family;
    const preset = this.preset;
    if (m === 'sampling') {
      const x = await this.browser.call(kind, { cmd: 'sample', preset, seed: 1 });
      return { s: (x.ms as number) / 1000, tokens: (x.rows as number) * (x.genSteps as number), extra: { kept_tokens: x.tokens as number, positions: x.genSteps as number } };
    }
    if (m === 'update') {
      const x = await this.browser.call(kind, { cmd: 'update', preset });
      return { s: (x.ms as number) / 1000, tokens: x.tokens as number };
    }
    const x = await this.browser.call(kind, { cmd: 'step', preset });
    return { s: (x.ms as number) / 1000, tokens: x.sampled_tokens as number, extra: { sampling_s: (x.sampling_ms as number) / 1000, update_s: (x.update_ms as number) / 1000, accuracy: x.accuracy as number } };
  }
  async finish() {
    await this.browser.call(this.family, { cmd: 'dispose', preset: this.preset });
  }
}

export const benchCommand: Command = {
  name: 'bench',
  summary: 'benchmark sampling, update and a whole GRPO step on node / browser WASM / WebGPU against a PyTorch peer',
  help,
  async run(argv) {
    const a = parseArgs(argv, ['quick', 'profile', 'no-profile']);
    checkKnownFlags(a, ['quick', 'presets', 'engines', 'threads', 'reps', 'webgpu-reps', 'webgpu-rows', 'budget', 'profile', 'no-profile', 'out']);
    const quick = flag(a, 'quick') === 'true';
    const list = (name: string, fallback: string) =>
      (flag(a, name) ?? fallback)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    const presets = list('presets', 'tiny,small') as ('tiny' | 'small')[];
    for (const p of presets) if (p !== 'tiny' && p !== 'small') throw new UsageError(`--presets: unknown preset "${p}" (tiny, small)`);
    const engines = new Set(list('engines', 'node,torch,wasm,webgpu'));
    for (const e of engines) if (!['node', 'torch', 'wasm', 'webgpu'].includes(e)) throw new UsageError(`--engines: unknown engine "${e}" (node, torch, wasm, webgpu)`);
    if (!engines.has('node')) throw new UsageError('--engines must include node (every ratio is relative to it)');
    const threadList = list('threads', '2,1').map(Number);
    if (!threadList.length || threadList.some((t) => !Number.isInteger(t) || t < 1)) throw new UsageError('--threads must be a list of positive integers, e.g. 2,1');
    const reps = intFlag(a, 'reps', quick ? 3 : 5);
    const gpuReps = intFlag(a, 'webgpu-reps', 1);
    const gpuRows = intFlag(a, 'webgpu-rows', 8);
    if (reps < 1 || gpuReps < 1) throw new UsageError('--reps and --webgpu-reps must be at least 1');
    if (gpuRows < 8 || gpuRows > 64 || gpuRows % 8) throw new UsageError('--webgpu-rows must be 8, 16, ... 64 (whole groups of 8 completions)');
    const budgetFlag = flag(a, 'budget');
    const budget = budgetFlag !== undefined ? Number(budgetFlag) : quick ? 170 : Infinity;
    if (!(budget > 0)) throw new UsageError('--budget must be a positive number of seconds');
    const outFile = resolve(flag(a, 'out') ?? join(BENCH, 'results.json'));
    const wantProfile = flag(a, 'profile') === 'true';
    const noProfile = flag(a, 'no-profile') === 'true';

    const t0 = performance.now();
    const elapsed = () => (performance.now() - t0) / 1000;
    const log = (s: string) => process.stderr.write(`[bench ${elapsed().toFixed(0).padStart(3)}s] ${s}\n`);
    const skipped: string[] = [];
    mkdirSync(WORK, { recursive: true });

    const loads: number[] = [loadavg()[0]!];
    const machine = {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memory_gib: Math.round(totalmem() / 2 ** 30),
      load_average_start: loadavg(),
      load_average_end: [] as number[],
      load_average_1min_median_during_run: 0,
    };
    log(`machine: ${machine.cpu}, ${machine.cores} cores; load average ${machine.load_average_start.map((x) => x.toFixed(2)).join(' ')} (other jobs share these cores: medians over alternating runs)`);

    const peers = new Map<number, TorchPeer>();
    let browser: BrowserBench | null = null;
    const cleanup = async () => {
      for (const p of peers.values()) await p.close().catch(() => undefined);
      await browser?.close().catch(() => undefined);
    };
    const onSignal = () => {
      void cleanup().finally(() => process.exit(130));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);

    try {
      // --- the PyTorch peer: one process per thread count (OpenMP and OpenBLAS pools are sized at start)
      let torchInfo: Record<string, unknown> = {};
      let blasOk = true;
      if (engines.has('torch')) {
        const inst = ensureTorch(log);
        for (const t of threadList) {
          const peer = TorchPeer.start(BENCH, t);
          const init = await peer.call({ cmd: 'init', threads: t });
          peers.set(t, peer);
          if (t !== threadList[0]) continue;
          const blas = init.blas as { gflops_512: number; build: string };
          blasOk = blas.gflops_512 > 20;
          torchInfo = {
            torch: init.torch,
            debian_package: `python3-torch ${dpkgVersion('python3-torch')}`,
            python: init.python,
            threads: init.threads,
            install: inst.note,
            libblas: inst.blasAlternative,
            openblas: dpkgVersion('libopenblas0-pthread'),
            matmul_512_gflops: blas.gflops_512,
            blas_ok: blasOk,
          };
          log(`PyTorch peer: torch ${String(init.torch)} (Debian python3-torch ${dpkgVersion('python3-torch')}), python ${String(init.python)}; ${inst.note}`);
          log(
            `PyTorch peer: torch.get_num_threads() = ${String(init.threads)}; libblas.so.3 -> ${inst.blasAlternative}; 512x512 matmul ${blas.gflops_512.toFixed(1)} GFLOP/s ${blasOk ? '(> 20: optimised BLAS, OpenBLAS)' : '(< 20: NOT an optimised BLAS; ratios against it would flatter us, so none are printed)'}`,
          );
        }
      }

      // --- the browser
      const browserInfo: Record<string, unknown> = {};
      if (engines.has('wasm') || engines.has('webgpu')) {
        const { BrowserBench } = await import('../../../bench/browser/driver.ts');
        browser = await BrowserBench.start(log);
        browserInfo.chromium = browser.chromium;
        browserInfo.cross_origin_isolated = browser.crossOriginIsolated;
        for (const kind of ['wasm', 'webgpu'] as const) {
          if (!engines.has(kind)) continue;
          const r = await browser.call(kind, { cmd: 'init', kind });
          browserInfo[kind] = { description: r.description, threads: r.threads, cross_origin_isolated: r.crossOriginIsolated, hardware_concurrency: r.hardwareConcurrency };
          log(`browser ${kind}: ${String(r.description)}, crossOriginIsolated=${String(r.crossOriginIsolated)}`);
        }
      }
      const wasmThreads = (browserInfo.wasm as { threads?: number } | undefined)?.threads ?? 0;

      const results: Record<string, Record<string, unknown>> = {};
      const allProfiles: ProfileSummary[] = [];
      const tableRows: string[] = [];
      const ratioRows: string[] = [];
      const ctxRef: { current: PresetCtx | null } = { current: null };

      interface PresetRun {
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
        /** The WebGPU engine's load and warm-up (compiles shaders), started early so it overlaps the next preset's untimed set-up. */
        gpuWarm?: Promise<BrowserEngine>;
      }
      const runs: PresetRun[] = [];

      /** Loads a browser engine for a preset, warms it up (compiles) and checks it against node on the same rows. */
      const loadBrowser = async (run: PresetRun, kind: 'wasm' | 'webgpu', nRows: number): Promise<BrowserEngine> => {
        const { ctx: c, setup, config } = run;
        const url = browser!.serve(`${run.id}.safetensors`, setup.weightsFile);
        const cfg = { ...config, prompts_per_step: nRows / config.num_generations };
        // Fewer rows: the first groups of the same batch (log-probs are per row, so they still compare).
        const batch = nRows === run.rows ? c.batch : sliceBatch(c.batch, nRows);
        const tl = performance.now();
        await browser!.call(kind, { cmd: 'load', preset: run.id, model: setup.model, weightsUrl: url, config: cfg });
        await browser!.call(kind, { cmd: 'sample', preset: run.id, seed: 1 });
        await browser!.call(kind, { cmd: 'setBatch', preset: run.id, batch });
        const r = await browser!.call(kind, { cmd: 'check', preset: run.id });
        const lp = r.logp as number[];
        let d = 0;
        for (let i = 0; i < batch.mask.length; i++) if (batch.mask[i]) d = Math.max(d, Math.abs(lp[i]! - c.ours.logp[i]!));
        run.browserChecks[`${kind}_max_abs_logp_diff_vs_node`] = d;
        if (nRows === run.rows) run.browserChecks[`${kind}_abs_loss_diff_vs_node`] = Math.abs((r.loss as number) - c.ours.loss);
        run.firstRun[`${kind}_load_and_warmup_ms`] = performance.now() - tl;
        const adapter = r.adapter as { vendor?: string; architecture?: string; software?: boolean } | null;
        if (kind === 'webgpu') browserInfo.webgpu_adapter = adapter;
        log(`browser ${kind}: loaded and compiled in ${((performance.now() - tl) / 1000).toFixed(1)} s${adapter ? ` (adapter ${adapter.vendor} ${adapter.architecture}${adapter.software ? ', software' : ''})` : ''}; vs node on the same rows: max |Δ logp| ${d.toExponential(2)}`);
        const label =
          kind === 'wasm'
            ? `Chromium WASM EP, ${wasmThreads} threads`
            : `Chromium WebGPU EP (${adapter?.software !== false ? `${adapter?.architecture || 'software'}: a software adapter, no GPU here` : `${adapter.vendor} ${adapter.architecture}`})${nRows !== run.rows ? `, ${nRows} rows` : ''}`;
        return new BrowserEngine(browser!, kind, kind === 'wasm' ? wasmThreads : 0, label, nRows, run.id);
      };

      // ---------------------------------------------------------------- CPU engines, preset by preset
      for (const [pi, presetId] of presets.entries()) {
        const setup = presetSetup(presetId);
        const config = benchRunConfig(setup.difficulty);
        const params = parameterCount(setup.model);
        const rows = config.prompts_per_step * config.num_generations;
        // In --quick the default preset gets every thread count, WASM and WebGPU; the larger one only the headline threads.
        const threadsHere = quick && pi > 0 ? threadList.slice(0, 1) : threadList;
        const wasmHere = !!browser && engines.has('wasm') && !(quick && pi > 0);
        const gpuHere = !!browser && engines.has('webgpu') && !(quick && pi > 0);
        if (quick && pi > 0) skipped.push(`${presetId}: ${[engines.has('wasm') ? 'WASM' : '', threadList.length > 1 ? `${threadList.slice(1).join(',')}-thread runs` : '', engines.has('webgpu') ? 'WebGPU' : ''].filter(Boolean).join(', ')} (not in --quick)`);
        const phaseEnd = quick ? ([0.35, 0.6][pi] ?? 1) : 1;
        log(`== preset ${presetId}: ${params.toLocaleString('en-US')} parameters (${setup.source}); ${rows} rows`);
        const firstRun: Record<string, number> = {};

        // node engines: the first thread count's runner makes the batch and is checked against PyTorch
        const nodes: NodeEngine[] = [];
        let ctx: PresetCtx | null = null;
        for (const t of threadsHere) {
          const tc = performance.now();
          const runner = await BenchRunner.create(createNodeBackend(t), setup.model, setup.weights, config);
          const s0 = await runner.sample(1);
          firstRun[`node@${t}_sampling_ms`] = performance.now() - tc;
          const tu = performance.now();
          if (!ctx) {
            const batch = makeUpdateBatch(runner.layout, config, s0.prompts, s0.completions);
            const batchFile = join(WORK, `batch-${presetId}.json`);
            const samplingFile = join(WORK, `sampling-${presetId}.json`);
            writeFileSync(batchFile, JSON.stringify(batch));
            writeFileSync(samplingFile, JSON.stringify(samplingBatch(config, runner.layout)));
            runner.setBatch(batch);
            const ours = await runner.checkValues();
            firstRun[`node@${t}_update_ms`] = performance.now() - tu;
            ctx = { id: presetId, setup, config, batch, batchFile, samplingFile, ours, positions: s0.genSteps, primary: runner, stepFiles: 0 };
            const l = runner.layout;
            log(`layout: prompt ${l.promptLen} + completion ${l.completionLen} columns; update batch ${batch.rows} rows, ${batch.tokens_counted} completion tokens; node@${t}: first sampling (compiles) ${(firstRun[`node@${t}_sampling_ms`]! / 1000).toFixed(1)} s, first update (compiles) ${(firstRun[`node@${t}_update_ms`]! / 1000).toFixed(1)} s`);
          } else {
            runner.setBatch(ctx.batch);
            await runner.update();
            firstRun[`node@${t}_update_ms`] = performance.now() - tu;
          }
          nodes.push(new NodeEngine(runner, t, ctxRef));
        }
        const c = ctx!;
        ctxRef.current = c;

        // --- correctness: ours vs PyTorch on the same batch, from the same weights
        let check: CheckResult | null = null;
        const torchEngines: TorchEngine[] = [];
        for (const t of threadsHere) {
          const peer = peers.get(t);
          if (!peer) continue;
          await peer.call({ cmd: 'load', id: presetId, config: setup.model, weights: setup.weightsFile, lr: c.batch.lr, adam: { beta1: config.adam_beta1, beta2: config.adam_beta2, eps: 1e-8, weightDecay: config.weight_decay, maxGradNorm: config.max_grad_norm } });
          torchEngines.push(new TorchEngine(peer, t, String(torchInfo.torch ?? ''), rows, ctxRef));
          if (check) continue;
          const updFile = join(WORK, `torch-updated-${presetId}.safetensors`);
          const tc = await peer.call({ cmd: 'check', id: presetId, batch: c.batchFile, out: updFile });
          const tl = tc.logp as number[];
          const te = tc.entropy as number[];
          let dl = 0;
          let de = 0;
          let n = 0;
          for (let i = 0; i < c.batch.mask.length; i++) {
            if (!c.batch.mask[i]) continue;
            n++;
            dl = Math.max(dl, Math.abs(tl[i]! - c.ours.logp[i]!));
            de = Math.max(de, Math.abs(te[i]! - c.ours.entropy[i]!));
          }
          // Our weights after that first update (the runner has done nothing else yet) vs PyTorch's.
          const ourW = await c.primary.policy.getWeights();
          const { tensors } = readSafetensors(new Uint8Array(readFileSync(updFile)));
          let dw = 0;
          for (const [name, tt] of tensors) {
            const o = ourW.get(name)!;
            for (let i = 0; i < o.length; i++) dw = Math.max(dw, Math.abs(o[i]! - tt.data[i]!));
          }
          const lossT = tc.loss as number;
          check = {
            ok: dl <= TOLERANCE && Math.abs(lossT - c.ours.loss) <= TOLERANCE && tc.pack_matches === true,
            max_abs_logp_diff: dl,
            abs_loss_diff: Math.abs(lossT - c.ours.loss),
            loss_ours: c.ours.loss,
            loss_torch: lossT,
            grad_norm_ours: c.ours.gradNorm,
            grad_norm_torch: tc.grad_norm as number,
            max_abs_entropy_diff: de,
            max_abs_weight_diff_after_update: dw,
            pack_matches: tc.pack_matches === true,
            tokens_compared: n,
          };
          log(
            `check vs PyTorch (${n} completion tokens): max |Δ logp| ${dl.toExponential(2)}, |Δ loss| ${check.abs_loss_diff.toExponential(2)} (loss ${c.ours.loss.toFixed(6)} vs ${lossT.toFixed(6)}), grad norm ${c.ours.gradNorm.toFixed(5)} vs ${check.grad_norm_torch.toFixed(5)}, max |Δ entropy| ${de.toExponential(2)}, max |Δ w| after the AdamW step ${dw.toExponential(2)}, packing ${check.pack_matches ? 'identical' : 'DIFFERS'} -> ${check.ok ? 'OK' : `FAILED (tolerance ${TOLERANCE}): no PyTorch ratios for ${presetId}`}`,
          );
        }

        const run: PresetRun = { id: presetId, pi, setup, config, params, rows, threadsHere, ctx: c, check, engines: [], samples: new Map(), firstRun, browserChecks: {}, gpu: gpuHere };
        runs.push(run);
        const cpu: Engine[] = [...nodes, ...torchEngines];
        if (wasmHere) cpu.push(await loadBrowser(run, 'wasm', rows));
        run.engines.push(...cpu);
        for (const e of cpu) run.samples.set(e.id, { sampling: [], update: [], step: [] });

        // --- timed rounds: every engine once per metric, order reversed every other round. A WebGPU
        // warm-up still running (started after the previous preset) must end first: it would disturb them.
        for (const prev of runs) if (prev.gpuWarm) await prev.gpuWarm;
        const phaseDeadline = t0 + phaseEnd * budget * 1000;
        for (let r = 0; r < reps; r++) {
          const tr = performance.now();
          const order = r % 2 === 0 ? cpu : [...cpu].reverse();
          for (const m of METRICS) for (const e of order) run.samples.get(e.id)![m].push(await e.run(m, r));
          loads.push(loadavg()[0]!);
          const last = (e: Engine, m: Metric) => run.samples.get(e.id)![m].at(-1)!.s.toFixed(2);
          const roundS = (performance.now() - tr) / 1000;
          log(`round ${r + 1}/${reps} (${roundS.toFixed(0)} s, load ${loadavg()[0]!.toFixed(1)}): ` + cpu.map((e) => `${e.id} ${last(e, 'sampling')}/${last(e, 'update')}/${last(e, 'step')} s`).join(', ') + ' (sampling/update/step)');
          if (r + 1 < reps && performance.now() + roundS * 1000 > phaseDeadline) {
            skipped.push(`${presetId}: round${r + 2 < reps ? `s ${r + 2}-${reps}` : ` ${reps}`} (time budget ${budget} s)`);
            log(`time budget: stopping ${presetId} after ${r + 1} round${r ? 's' : ''}`);
            break;
          }
        }
        for (const e of cpu) await e.finish();
        ctxRef.current = null;
        // If another preset follows, start this preset's WebGPU warm-up now: it overlaps that preset's
        // untimed set-up (the last preset's warm-up runs in the WebGPU phase, after the others' timed runs).
        if (gpuHere && quick && budget - elapsed() < 30) {
          run.gpu = false;
          skipped.push(`${presetId}: WebGPU (time budget ${budget} s)`);
        } else if (gpuHere && pi < presets.length - 1) {
          run.gpuWarm = loadBrowser(run, 'webgpu', gpuRows);
          run.gpuWarm.catch(() => undefined);
        }
      }

      // ---------------------------------------------------------------- WebGPU, last
      // In --quick: sampling and update only (a step is both plus the trainer's bookkeeping, and on a
      // software adapter another minute); otherwise every metric.
      const gpuMetrics: Metric[] = quick ? ['sampling', 'update'] : METRICS;
      if (quick && runs.some((r) => r.gpu)) skipped.push('WebGPU step (not in --quick)');
      for (const run of runs) {
        if (!run.gpu) continue;
        const gpu = await (run.gpuWarm ?? loadBrowser(run, 'webgpu', gpuRows));
        run.engines.push(gpu);
        run.samples.set(gpu.id, { sampling: [], update: [], step: [] });
        for (let r = 0; r < gpuReps; r++) {
          for (const m of gpuMetrics) {
            const x = await gpu.run(m);
            run.samples.get(gpu.id)![m].push(x);
            log(`webgpu ${run.id} ${m}: ${x.s.toFixed(1)} s`);
          }
        }
        await gpu.finish();
      }

      // ---------------------------------------------------------------- statistics, ratios, profiles
      for (const run of runs) {
        const { id: presetId, check, threadsHere, samples, params, rows, setup, config, ctx: c } = run;
        const thr = (xs: Sample[]) => stat(xs.map((x) => x.tokens / x.s));
        const secs = (xs: Sample[]) => stat(xs.map((x) => x.s));
        const statsOf = (id: string) => {
          const s = samples.get(id);
          return s ? { sampling: thr(s.sampling), update: thr(s.update), step: secs(s.step) } : null;
        };
        const ratioOK = !!check?.ok && blasOk;
        const withheld = !peers.size ? 'no PyTorch peer in this run' : !check ? 'no check ran' : !check.ok ? `correctness check failed: max |Δ logp| ${check.max_abs_logp_diff.toExponential(2)}, |Δ loss| ${check.abs_loss_diff.toExponential(2)} (tolerance ${TOLERANCE})` : !blasOk ? 'torch is not using an optimised BLAS' : null;
        const r3 = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 1000) / 1000);
        const byThreads: Record<string, Record<string, number | null>> = {};
        for (const t of threadsHere) {
          const n = statsOf(`node@${t}`);
          const p = statsOf(`torch@${t}`);
          byThreads[String(t)] = {
            update_vs_pytorch: ratioOK && n?.update && p?.update ? r3(n.update.median / p.update.median) : null,
            sampling_vs_pytorch: ratioOK && n?.sampling && p?.sampling ? r3(n.sampling.median / p.sampling.median) : null,
            step_vs_pytorch: ratioOK && n?.step && p?.step ? r3(p.step.median / n.step.median) : null,
          };
        }
        const best = (fam: 'node' | 'torch', m: Metric) => {
          const xs = threadsHere.map((t) => statsOf(`${fam}@${t}`)?.[m]?.median).filter((x): x is number => x !== undefined);
          return xs.length ? (m === 'step' ? Math.min(...xs) : Math.max(...xs)) : null;
        };
        const bb = (m: Metric) => {
          const n = best('node', m);
          const p = best('torch', m);
          return ratioOK && n && p ? r3(m === 'step' ? p / n : n / p) : null;
        };
        const bestVsBest = { update_vs_pytorch: bb('update'), sampling_vs_pytorch: bb('sampling'), step_vs_pytorch: bb('step') };
        const head = String(threadsHere[0]);
        const nodeWasm = statsOf(`node@${wasmThreads}`) ?? statsOf(`node@${head}`);
        const wasmS = statsOf('wasm');
        const ratios = {
          ...byThreads[head],
          browser_wasm_step_vs_node: r3(wasmS?.step && nodeWasm?.step ? wasmS.step.median / nodeWasm.step.median : null),
          browser_wasm_update_vs_node: r3(wasmS?.update && nodeWasm?.update ? nodeWasm.update.median / wasmS.update.median : null),
          browser_wasm_sampling_vs_node: r3(wasmS?.sampling && nodeWasm?.sampling ? nodeWasm.sampling.median / wasmS.sampling.median : null),
        };
        results[presetId] = {
          parameters: params,
          weights: setup.source,
          model: setup.model,
          layout: c.primary.layout,
          rows,
          update_tokens: c.batch.tokens_counted,
          units: { sampling: 'tokens/s (rows x decode positions per second)', update: 'completion tokens/s', step: 'seconds per GRPO step' },
          engines: Object.fromEntries(run.engines.map((e) => [e.id, { label: e.label, rows: e.rows, threads: e.threads, ...statsOf(e.id), runs: samples.get(e.id) }])),
          ratios,
          ratios_by_threads: byThreads,
          ratios_best_vs_best: bestVsBest,
          ratios_withheld_because: withheld,
          check,
          browser_checks: run.browserChecks,
          first_run_ms: run.firstRun,
        };
        for (const e of run.engines) {
          const s = statsOf(e.id)!;
          tableRows.push(`| ${presetId} (${(params / 1e6).toFixed(2)}M) | ${e.label} | ${fmtStat(s.sampling)} | ${fmtStat(s.update)} | ${fmtStat(s.step)} |`);
        }
        const fr = (x: number | null | undefined, ok?: (x: number) => boolean) => (x === null || x === undefined ? '—' : `${x.toFixed(2)}×${ok ? (ok(x) ? ' ✓' : ' ✗') : ''}`);
        for (const t of threadsHere) {
          const b = byThreads[String(t)]!;
          const isHead = String(t) === head;
          ratioRows.push(
            `| ${presetId} | ${t} | ${fr(b.update_vs_pytorch, (x) => x >= 1)} | ${fr(b.sampling_vs_pytorch, (x) => x >= 1)} | ${fr(b.step_vs_pytorch)} | ${isHead ? fr(ratios.browser_wasm_step_vs_node, (x) => x <= 3) : ''} | ${isHead && check ? `${check.max_abs_logp_diff.toExponential(1)}, ${check.abs_loss_diff.toExponential(1)} ${check.ok ? 'OK' : 'FAILED'}` : ''} |`,
          );
        }
        if (threadsHere.length > 1) ratioRows.push(`| ${presetId} | best vs best | ${fr(bestVsBest.update_vs_pytorch, (x) => x >= 1)} | ${fr(bestVsBest.sampling_vs_pytorch, (x) => x >= 1)} | ${fr(bestVsBest.step_vs_pytorch)} | | |`);
        if (withheld) ratioRows.push(`| ${presetId} | no PyTorch ratios: ${withheld} | | | | | |`);

        const below = (x: number | null | undefined) => x !== null && x !== undefined && x < 1;
        const missed = below(byThreads[head]?.update_vs_pytorch) || below(byThreads[head]?.sampling_vs_pytorch) || below(bestVsBest.update_vs_pytorch) || below(bestVsBest.sampling_vs_pytorch);
        if (!noProfile && (wantProfile || (missed && !quick))) {
          log(`profiling onnxruntime-node on ${presetId} (${wantProfile ? '--profile' : 'a target was missed'})`);
          const prof: ProfileSummary[] = [];
          for (const t of threadsHere) prof.push(...(await profileNode(setup, config, t, c.batch, log)));
          allProfiles.push(...prof);
          results[presetId]!.profile = prof;
        }
      }
      machine.load_average_end = loadavg();
      machine.load_average_1min_median_during_run = median(loads);

      // --- output
      const headline = (results['tiny'] ?? results[presets[0]!])!;
      const wall = elapsed();
      const json = {
        date: new Date().toISOString(),
        command: `rlvr bench ${argv.join(' ')}`.trim(),
        quick,
        wall_seconds: Math.round(wall),
        skipped,
        machine,
        versions: {
          node: process.version,
          'onnxruntime-node': version('onnxruntime-node'),
          'onnxruntime-web': version('onnxruntime-web'),
          chromium: browserInfo.chromium ?? null,
          'playwright-core': version('playwright-core'),
          ...torchInfo,
        },
        browser: browserInfo,
        setup: {
          task: 'arithmetic (difficulty of the shipped checkpoint: 3 digits, + and -)',
          rows: '8 prompts x 8 completions = 64 (WebGPU: --webgpu-rows)',
          max_completion_length: 48,
          reps,
          threads: threadList,
          sampling:
            'ours: Policy.sample (batched KV-cache decode, temperature 1; the prompt is fed one column per run, then one token per run). PyTorch: one prefill pass over the left-padded prompts, then one token per step with a static KV cache, torch.multinomial. Throughput = rows x decode positions per second: every row is computed at every position. Ours stops once every row has emitted EOS; PyTorch then generates the same number of positions with EOS ignored.',
          update:
            'one GRPO update (loss_type grpo, token-level ratio, clip 0.2, AdamW lr 1e-4, betas 0.9/0.999, eps 1e-8, weight decay 0, global grad-norm clip 1.0) on a fixed batch: our sampled completions, synthetic seeded rewards, old log-probs shifted by a seeded ±0.3. Ours: Policy.train with buildRlGraph (one ONNX graph: forward, objective, backward, AdamW); PyTorch: nn.Module forward, log_softmax/gather, clipped objective, backward, clip_grad_norm_, torch.optim.AdamW.',
          step: 'ours: Trainer.trainStep (sample + the TypeScript verifier + reward shaping + advantages + update + metrics and rollout records). PyTorch: the same prompts, sample (EOS stops a row) + a trivial Python verifier (exact match of the <answer> tag) + group advantages + update.',
          alternation: 'every CPU engine (node@threads, torch@threads, WASM) once per metric per round, order reversed every other round; WebGPU after the CPU engines',
        },
        // Headline: the default CPU preset (tiny), node and PyTorch on the first --threads value (2 = the cores).
        ratios: headline.ratios,
        ratios_best_vs_best: headline.ratios_best_vs_best,
        targets: { update_vs_pytorch: '>= 1.0', sampling_vs_pytorch: '>= 1.0', browser_wasm_step_vs_node: '<= 3.0' },
        presets: results,
        profile: allProfiles,
      };
      writeFileSync(outFile, JSON.stringify(json, null, 2) + '\n');

      const md: string[] = [];
      const la = machine.load_average_start;
      md.push(`### rlvr bench ${argv.join(' ')} — ${json.date.slice(0, 16).replace('T', ' ')} UTC`);
      md.push('');
      md.push(
        `${machine.cpu}, ${machine.cores} cores, shared with other jobs: load average ${la[0]!.toFixed(1)} at the start, median ${machine.load_average_1min_median_during_run.toFixed(1)} during the run. Node ${process.version}, onnxruntime-node ${version('onnxruntime-node')}, onnxruntime-web ${version('onnxruntime-web')}${browserInfo.chromium ? `, Chromium ${String(browserInfo.chromium)}` : ''}${torchInfo.torch ? `; torch ${String(torchInfo.torch)} (${String(torchInfo.debian_package)}), OpenBLAS ${String(torchInfo.openblas)}: 512×512 matmul ${(torchInfo.matmul_512_gflops as number).toFixed(0)} GFLOP/s, torch.get_num_threads() = ${String(torchInfo.threads)}` : ''}.`,
      );
      md.push(`Median (min–max) over up to ${reps} alternating rounds; 64 rows = 8 prompts × 8 completions (arithmetic, 48-token cap). Sampling: rows × decode positions per second; update: completion tokens per second; step: seconds.`);
      md.push('');
      md.push('| preset | engine | sampling tok/s | update tok/s | step s |');
      md.push('|---|---|---|---|---|');
      md.push(...tableRows);
      md.push('');
      md.push('| preset | CPU threads | update vs PyTorch (≥1) | sampling vs PyTorch (≥1) | step time PyTorch / ours | WASM step / node step (≤3) | check vs PyTorch: max abs Δ logp, Δ loss (≤1e-4) |');
      md.push('|---|---|---|---|---|---|---|');
      md.push(...ratioRows);
      if (engines.has('webgpu')) md.push('\nWebGPU here runs on SwiftShader, a software adapter (this machine has no GPU): its figures show the WebGPU code path working, not GPU speed; they use fewer rows (--webgpu-rows) and are not compared.');
      if (allProfiles.length) {
        md.push('\n#### Where onnxruntime-node spends its time (ORT profiling, per call)');
        for (const p of allProfiles) {
          md.push(
            `- ${p.what}: ${p.wall_ms_per_call.toFixed(0)} ms = ORT runs ${p.ort_run_ms_per_call.toFixed(0)} ms (${p.ort_runs_per_call} run${p.ort_runs_per_call === 1 ? '' : 's'}: kernels ${p.kernel_ms_per_call.toFixed(0)} ms + ORT per-run overhead ${p.ort_overhead_ms_per_call.toFixed(0)} ms) + outside ORT ${p.outside_ort_ms_per_call.toFixed(0)} ms (JS: feeds, reading outputs, token draws). Top ops: ${p.top_ops
              .slice(0, 6)
              .map((o) => `${o.op} ${o.ms_per_call.toFixed(1)} ms (${(o.share * 100).toFixed(0)}%)`)
              .join(', ')}`,
          );
        }
      }
      if (skipped.length) md.push(`\nSkipped: ${skipped.join('; ')}.`);
      md.push(`\nWall time: ${wall.toFixed(0)} s. Results: ${relative(process.cwd(), outFile) || outFile}`);
      const errs = browser?.consoleErrors.filter((e) => !/favicon|404/.test(e)) ?? [];
      if (errs.length) md.push(`\nBrowser console errors/warnings (${errs.length}): ${errs.slice(0, 3).join(' | ')}`);
      process.stdout.write(md.join('\n') + '\n');
      return 0;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await cleanup();
    }
  },
};
