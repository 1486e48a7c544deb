/**
 * `rlvr bench`: reads the flags, starts the PyTorch peers and the browser, times each preset on the
 * CPU engines (bench/cpu-phase.ts), then WebGPU, and reports (bench/report.ts). The benchmark itself
 * lives with its peers and browser page in bench/; this command file is its only entry, so bench/
 * never imports the CLI (src/folder-imports.test.ts).
 */
import { mkdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { flag, flagUsage, intFlag, parseFlags, UsageError, type FlagTable } from '../args.ts';
import { loadBrowser, runCpuPreset } from '../../../bench/cpu-phase.ts';
import { createNodeBackend } from '../../engine/backend-node.ts';
import { gemmGflops, MLP_GEMM } from '../../../bench/gemm.ts';
import { BENCH, dpkgVersion, METRICS, TOLERANCE, WORK, type Metric } from '../../../bench/presets.ts';
import { writeDocBlock } from '../doc-blocks.ts';
import { summarise, writeResults } from '../../../bench/report.ts';
import type { Bench, BenchOptions } from '../../../bench/session.ts';
import { ensureTorch, TorchPeer } from '../../../bench/torch.ts';
import type { Command } from './command.ts';
import {
  isLlamaPreset,
  LLAMA_PRESETS,
  llamaPresetModel,
  runLlamaPreset,
  SMOLLM2_135M_CONFIG,
} from '../../../bench/llama.ts';
import type { ModelConfig } from '../../model/config.ts';

const FLAGS: FlagTable = {
  quick: {
    help:
      'a time budget of 170 s (see --budget): tiny preset on node/torch/WASM (up to 3\n' +
      'rounds), small preset on node/torch (1 round), then WebGPU on tiny if time is left',
  },
  presets: {
    value: 'LIST',
    help:
      'tiny,small,smollm2-135m (default tiny,small; tiny is the CPU default, small the WebGPU\n' +
      'one; smollm2-135m: the SmolLM2-135M shape, random weights, LoRA r=8, against PyTorch + PEFT)',
  },
  engines: { value: 'LIST', help: 'node,torch,wasm,webgpu (default all)' },
  threads: {
    value: 'LIST',
    help:
      'CPU thread counts for onnxruntime-node and PyTorch (default 2,1: 2 = the cores is\n' +
      'the headline; 1 because on a busy machine both run faster on one thread)',
  },
  reps: { value: 'N', help: 'timed rounds per preset (default 5, --quick 3)' },
  'webgpu-reps': { value: 'N', help: 'WebGPU rounds (default 1)' },
  'webgpu-rows': {
    value: 'N',
    help:
      'rows of the WebGPU runs (default 8 = 1 prompt x 8; 64 = the full batch, which takes\n' +
      'tens of minutes on SwiftShader, the software adapter of a machine without a GPU)',
  },
  budget: {
    value: 'S',
    help: 'stop adding rounds (and skip WebGPU) when S seconds are used (default: none; --quick 170)',
  },
  profile: {
    help:
      'profile onnxruntime-node per op (ORT enableProfiling); also done, ' +
      'outside --quick,\nwhen a target is missed',
  },
  'no-profile': { help: 'never profile' },
  layers: {
    value: 'N',
    help:
      "the Llama presets with only their first N hidden layers (default: all; SmolLM2-135M's 30 take\n" +
      'minutes a round here): the quick form CI runs (scripts/bench-quick.mjs)',
  },
  resident: {
    value: 'LIST',
    help:
      'the Llama presets: session kinds that bake the frozen base in (prefill,decode,rl; none: every\n' +
      "run feeds it); default each backend's (src/model/resident.ts RESIDENT_KINDS)",
  },
  out: { value: 'FILE', help: 'results file (default bench/results.json)' },
  readme: { help: 'also write the report into docs/measured.md (between <!-- bench:start --> and <!-- bench:end -->)' },
};

export const help = `rlvr bench [--quick] [flags]
Measures one GRPO step at the default batch size (on arithmetic, P=8 prompts x G=8 completions = 64 rows,
48-token cap) on onnxruntime-node, on Chromium's WASM and WebGPU EPs (headless; bench/browser/), and
on a PyTorch eager CPU peer (bench/torch_peer.py: Debian's python3-torch with OpenBLAS, installed with
apt-get when missing) with the same weights from the same safetensors file and the same inputs, runs
of the engines alternating (the engines of one thread count together, one thread count after the other):
  sampling  tokens/s generating the 64 completions with the KV cache
  update    tokens/s of one GRPO update (scoring + loss + backward + AdamW) on a fixed batch
  step      seconds per GRPO step (sample + verify + update)
It first checks that ours and PyTorch compute the same log-probs and loss (within ${TOLERANCE}) and
prints no ratio otherwise. Writes bench/results.json and prints a markdown table (stdout; progress on stderr).
${flagUsage(FLAGS)}`;

/** The flags of `rlvr bench`, checked; throws UsageError naming the bad one. */
export function parseBenchOptions(argv: string[]): BenchOptions {
  const a = parseFlags(argv, FLAGS);
  const quick = flag(a, 'quick') === 'true';
  const list = (name: string, fallback: string) =>
    (flag(a, name) ?? fallback)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const all = list('presets', 'tiny,small');
  for (const p of all)
    if (p !== 'tiny' && p !== 'small' && !isLlamaPreset(p))
      throw new UsageError(`--presets: unknown preset "${p}" (tiny, small, ${LLAMA_PRESETS.join(', ')})`);
  if (!all.length) throw new UsageError('--presets: name at least one preset');
  const presets = all.filter((p): p is 'tiny' | 'small' => p === 'tiny' || p === 'small');
  const llamaPresets = all.filter(isLlamaPreset);
  const engines = new Set(list('engines', 'node,torch,wasm,webgpu'));
  for (const e of engines)
    if (!['node', 'torch', 'wasm', 'webgpu'].includes(e))
      throw new UsageError(`--engines: unknown engine "${e}" (node, torch, wasm, webgpu)`);
  if (!engines.has('node')) throw new UsageError('--engines must include node (every ratio is relative to it)');
  const threadList = list('threads', '2,1').map(Number);
  if (!threadList.length || threadList.some((t) => !Number.isInteger(t) || t < 1))
    throw new UsageError('--threads must be a list of positive integers, e.g. 2,1');
  const reps = intFlag(a, 'reps', quick ? 3 : 5);
  const gpuReps = intFlag(a, 'webgpu-reps', 1);
  const gpuRows = intFlag(a, 'webgpu-rows', 8);
  if (reps < 1 || gpuReps < 1) throw new UsageError('--reps and --webgpu-reps must be at least 1');
  if (gpuRows < 8 || gpuRows > 64 || gpuRows % 8)
    throw new UsageError('--webgpu-rows must be 8, 16, ... 64 (whole groups of 8 completions)');
  const budgetFlag = flag(a, 'budget');
  const budget = budgetFlag !== undefined ? Number(budgetFlag) : quick ? 170 : Infinity;
  if (!(budget > 0)) throw new UsageError('--budget must be a positive number of seconds');
  const outFile = resolve(flag(a, 'out') ?? join(BENCH, 'results.json'));
  const layersFlag = flag(a, 'layers');
  const llamaLayers = layersFlag === undefined ? undefined : intFlag(a, 'layers', 0);
  const allLayers = SMOLLM2_135M_CONFIG.num_hidden_layers;
  if (llamaLayers !== undefined && (llamaLayers < 1 || llamaLayers > allLayers))
    throw new UsageError(`--layers must be 1 to ${allLayers} (SmolLM2-135M's layers), got ${llamaLayers}`);
  const resident = flag(a, 'resident') === undefined ? undefined : list('resident', '').filter((k) => k !== 'none');
  return {
    quick,
    presets,
    llamaPresets,
    engines,
    threadList,
    reps,
    gpuReps,
    gpuRows,
    budget,
    outFile,
    wantProfile: flag(a, 'profile') === 'true',
    noProfile: flag(a, 'no-profile') === 'true',
    readme: flag(a, 'readme') === 'true',
    ...(llamaLayers !== undefined ? { llamaLayers } : {}),
    ...(resident !== undefined ? { resident } : {}),
  };
}

/**
 * Runs the benchmark; prints the markdown report on stdout (progress on stderr) and returns the exit code.
 * `llamaModel` replaces the Llama presets' model (a test's dry run at a tiny shape).
 */
export async function runBench(argv: string[], test: { llamaModel?: ModelConfig } = {}): Promise<number> {
  const opts = parseBenchOptions(argv);
  const t0 = performance.now();
  const elapsed = () => (performance.now() - t0) / 1000;
  const b: Bench = {
    argv,
    opts,
    t0,
    elapsed,
    log: (s: string) => process.stderr.write(`[bench ${elapsed().toFixed(0).padStart(3)}s] ${s}\n`),
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memory_gib: Math.round(totalmem() / 2 ** 30),
      load_average_start: loadavg(),
      load_average_end: [],
      load_average_1min_median_during_run: 0,
    },
    loads: [loadavg()[0]!],
    skipped: [],
    peers: new Map(),
    browser: null,
    browserInfo: {},
    wasmThreads: 0,
    torchInfo: {},
    gemm: [],
    blasOk: true,
    ctxRef: { current: null },
    runs: [],
    llamaRuns: [],
  };
  const { machine, log } = b;
  mkdirSync(WORK, { recursive: true });
  log(
    `machine: ${machine.cpu}, ${machine.cores} cores; load average ` +
      `${machine.load_average_start.map((x) => x.toFixed(2)).join(' ')} ` +
      '(other jobs share these cores: medians over alternating runs)',
  );

  const cleanup = async () => {
    for (const p of b.peers.values()) await p.close().catch(() => undefined);
    await b.browser?.close().catch(() => undefined);
  };
  const onSignal = () => {
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await startPeers(b);
    await startBrowser(b);
    await measureGemm(b);
    for (const [pi, presetId] of opts.presets.entries()) await runCpuPreset(b, pi, presetId);
    await runWebGpu(b);
    for (const id of opts.llamaPresets)
      await runLlamaPreset(b, id, test.llamaModel ?? llamaPresetModel(id, opts.llamaLayers));
    const summary = await summarise(b);
    const report = writeResults(b, summary);
    process.stdout.write(report);
    if (opts.readme) log(`docs/measured.md: speed table ${writeDocBlock('bench', report) ? 'written' : 'unchanged'}`);
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanup();
  }
}

/** The PyTorch peer: one process per thread count (OpenMP and OpenBLAS pools are sized at start). */
async function startPeers(b: Bench): Promise<void> {
  const { log, peers } = b;
  const { engines, threadList, presets } = b.opts;
  // The Llama presets start their own PyTorch + PEFT peer (bench/llama.ts).
  if (engines.has('torch') && presets.length) {
    const inst = ensureTorch(log);
    for (const t of threadList) {
      const peer = TorchPeer.start(BENCH, t);
      const init = await peer.call({ cmd: 'init', threads: t });
      peers.set(t, peer);
      if (t !== threadList[0]) continue;
      const blas = init.blas as { gflops_512: number; build: string };
      const blasOk = blas.gflops_512 > 20;
      b.blasOk = blasOk;
      b.torchInfo = {
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
      log(
        `PyTorch peer: torch ${String(init.torch)} (Debian python3-torch ` +
          `${dpkgVersion('python3-torch')}), python ${String(init.python)}; ${inst.note}`,
      );
      log(
        `PyTorch peer: torch.get_num_threads() = ${String(init.threads)}; libblas.so.3 -> ` +
          `${inst.blasAlternative}; 512x512 matmul ${blas.gflops_512.toFixed(1)} ` +
          'GFLOP/s ' +
          (blasOk
            ? '(> 20: optimised BLAS, OpenBLAS)'
            : '(< 20: NOT an optimised BLAS; ratios against it would flatter us, so none are printed)'),
      );
    }
  }
}

/**
 * The matmul kernels themselves at each thread count: ours (Node, and the browser's WASM at its threads) and the peer's
 * (gemm.ts).
 */
async function measureGemm(b: Bench): Promise<void> {
  const { m, k, n } = MLP_GEMM;
  if (!b.opts.presets.length) return; // the GPT presets' MLP matmul: nothing to compare at the Llama presets
  for (const t of b.opts.threadList) {
    const mlas = await gemmGflops(createNodeBackend(t));
    const peer = b.peers.get(t);
    const openblas = peer ? ((await peer.call({ cmd: 'gemm' })).gflops as number) : null;
    const wasm =
      b.browser && b.opts.engines.has('wasm') && t === b.wasmThreads
        ? ((await b.browser.call('wasm', { cmd: 'gemm' })).gflops as number)
        : null;
    b.gemm.push({ threads: t, mlas, openblas, wasm });
    const also = [
      openblas === null ? '' : `, PyTorch (OpenBLAS) ${openblas.toFixed(0)}`,
      wasm === null ? '' : `, browser WASM ${wasm.toFixed(0)}`,
    ].join('');
    b.log(
      `matmul [${m},${k}]x[${k},${n}], ${t} thread${t === 1 ? '' : 's'}, GFLOP/s: onnxruntime-node (MLAS) ` +
        `${mlas.toFixed(0)}${also}`,
    );
  }
}

/** Headless Chromium with the bench page (bench/browser/), when --engines asks for WASM or WebGPU. */
async function startBrowser(b: Bench): Promise<void> {
  const { log, browserInfo } = b;
  const { presets } = b.opts;
  // WebGPU runs the GPT presets only (no GPU here: a software adapter at the Llama presets' size would take hours).
  const engines = new Set([...b.opts.engines].filter((e) => e !== 'webgpu' || presets.length));
  if (engines.has('wasm') || engines.has('webgpu')) {
    const { BrowserBench } = await import('../../../bench/browser/driver.ts');
    const browser = await BrowserBench.start(log);
    b.browser = browser;
    browserInfo.chromium = browser.chromium;
    browserInfo.cross_origin_isolated = browser.crossOriginIsolated;
    for (const kind of ['wasm', 'webgpu'] as const) {
      if (!engines.has(kind)) continue;
      const r = await browser.call(kind, { cmd: 'init', kind });
      browserInfo[kind] = {
        description: r.description,
        threads: r.threads,
        cross_origin_isolated: r.crossOriginIsolated,
        hardware_concurrency: r.hardwareConcurrency,
      };
      log(`browser ${kind}: ${String(r.description)}, crossOriginIsolated=${String(r.crossOriginIsolated)}`);
    }
  }
  b.wasmThreads = (browserInfo.wasm as { threads?: number } | undefined)?.threads ?? 0;
}

/** WebGPU last, after every CPU engine's timed rounds (a software adapter would disturb them). */
async function runWebGpu(b: Bench): Promise<void> {
  const { log, skipped, runs } = b;
  const { quick, gpuRows, gpuReps } = b.opts;
  // In --quick: sampling and update only (a step is both plus the trainer's bookkeeping, and on a
  // software adapter another minute); otherwise every metric.
  const gpuMetrics: Metric[] = quick ? ['sampling', 'update'] : METRICS;
  if (quick && runs.some((r) => r.gpu)) skipped.push('WebGPU step (not in --quick)');
  for (const run of runs) {
    if (!run.gpu) continue;
    const gpu = await (run.gpuWarm ?? loadBrowser(b, run, 'webgpu', gpuRows));
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
}

export const benchCommand: Command = {
  name: 'bench',
  summary: 'benchmark sampling, update and a whole GRPO step on node / browser WASM / WebGPU against a PyTorch peer',
  help,
  modes: [{ argv: [], flags: FLAGS }],
  run: runBench,
};
