/**
 * `rlvr bench`, one preset on the CPU engines: onnxruntime-node at each thread count, the PyTorch peer
 * (checked against ours on the same batch first) and Chromium's WASM EP, in alternating timed rounds,
 * one thread count at a time.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createNodeBackend } from '../src/engine/backend-node.ts';
import { readSafetensors } from '../src/model/safetensors.ts';
import { parameterCount } from '../src/model/transformer.ts';
import { benchRunConfig, makeUpdateBatch, samplingBatch, sliceBatch } from './batches.ts';
import { BenchRunner } from './core.ts';
import { BrowserEngine, NodeEngine, TorchEngine, type Engine, type PresetCtx } from './engines.ts';
import { METRICS, presetSetup, TOLERANCE, WORK, type CheckResult, type Metric } from './presets.ts';
import type { Bench, PresetRun } from './session.ts';
import type { TorchPeer } from './torch.ts';

/** Loads a browser engine for a preset, warms it up (compiles) and checks it against node on the same rows. */
export async function loadBrowser(
  b: Bench,
  run: PresetRun,
  kind: 'wasm' | 'webgpu',
  nRows: number,
): Promise<BrowserEngine> {
  const { browser, browserInfo, wasmThreads, log } = b;
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
  if (nRows === run.rows)
    run.browserChecks[`${kind}_abs_loss_diff_vs_node`] = Math.abs((r.loss as number) - c.ours.loss);
  run.firstRun[`${kind}_load_and_warmup_ms`] = performance.now() - tl;
  const adapter = r.adapter as { vendor?: string; architecture?: string; software?: boolean } | null;
  if (kind === 'webgpu') browserInfo.webgpu_adapter = adapter;
  const adapterText = adapter
    ? ` (adapter ${adapter.vendor} ${adapter.architecture}${adapter.software ? ', software' : ''})`
    : '';
  log(
    `browser ${kind}: loaded and compiled in ${((performance.now() - tl) / 1000).toFixed(1)} ` +
      `s${adapterText}` +
      '; ' +
      `vs node on the same rows: max |Δ logp| ${d.toExponential(2)}`,
  );
  const gpuText =
    adapter?.software !== false
      ? `${adapter?.architecture || 'software'}: a software adapter, no GPU here`
      : `${adapter.vendor} ${adapter.architecture}`;
  const label =
    kind === 'wasm'
      ? `Chromium WASM EP, ${wasmThreads} threads`
      : 'Chromium WebGPU EP ' + `(${gpuText}` + `)${nRows !== run.rows ? `, ${nRows} rows` : ''}`;
  return new BrowserEngine(browser!, kind, kind === 'wasm' ? wasmThreads : 0, label, nRows, run.id);
}

/** Sets up and times the CPU engines on preset `presetId` (the `pi`-th of --presets); adds its run to `b.runs`. */
export async function runCpuPreset(b: Bench, pi: number, presetId: 'tiny' | 'small'): Promise<void> {
  const { opts, browser, peers, torchInfo, log, skipped, loads, ctxRef, runs, t0, elapsed } = b;
  const { quick, threadList, engines, reps, budget, gpuRows, presets } = opts;
  const setup = presetSetup(presetId);
  const config = benchRunConfig(setup.difficulty);
  const params = parameterCount(setup.model);
  const rows = config.prompts_per_step * config.num_generations;
  // In --quick the default preset gets every thread count, WASM and WebGPU; the larger one only the headline threads.
  const threadsHere = quick && pi > 0 ? threadList.slice(0, 1) : threadList;
  const wasmHere = !!browser && engines.has('wasm') && !(quick && pi > 0);
  const gpuHere = !!browser && engines.has('webgpu') && !(quick && pi > 0);
  if (quick && pi > 0)
    skipped.push(
      `${presetId}: ` +
        [
          engines.has('wasm') ? 'WASM' : '',
          threadList.length > 1 ? `${threadList.slice(1).join(',')}-thread runs` : '',
          engines.has('webgpu') ? 'WebGPU' : '',
        ]
          .filter(Boolean)
          .join(', ') +
        ' ' +
        '(not in --quick)',
    );
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
      ctx = {
        id: presetId,
        setup,
        config,
        batch,
        batchFile,
        samplingFile,
        ours,
        positions: s0.genSteps,
        primary: runner,
        stepFiles: 0,
      };
      const l = runner.layout;
      log(
        `layout: prompt ${l.promptLen} + completion ${l.completionLen} columns; update batch ${batch.rows} ` +
          `rows, ${batch.tokens_counted} completion tokens; node@${t}: first sampling (compiles) ` +
          `${(firstRun[`node@${t}_sampling_ms`]! / 1000).toFixed(1)} ` +
          `s, first update (compiles) ${(firstRun[`node@${t}_update_ms`]! / 1000).toFixed(1)} s`,
      );
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
    await peer.call({
      cmd: 'load',
      id: presetId,
      config: setup.model,
      weights: setup.weightsFile,
      lr: c.batch.lr,
      adam: {
        beta1: config.adam_beta1,
        beta2: config.adam_beta2,
        eps: 1e-8,
        weightDecay: config.weight_decay,
        maxGradNorm: config.max_grad_norm,
      },
    });
    torchEngines.push(new TorchEngine(peer, t, String(torchInfo.torch ?? ''), rows, ctxRef));
    if (check) continue;
    check = await checkAgainstTorch(peer, c, log);
  }

  const run: PresetRun = {
    id: presetId,
    pi,
    setup,
    config,
    params,
    rows,
    threadsHere,
    ctx: c,
    check,
    engines: [],
    samples: new Map(),
    firstRun,
    browserChecks: {},
    gpu: gpuHere,
  };
  runs.push(run);
  const cpu: Engine[] = [...nodes, ...torchEngines];
  if (wasmHere) cpu.push(await loadBrowser(b, run, 'wasm', rows));
  run.engines.push(...cpu);
  for (const e of cpu) run.samples.set(e.id, { sampling: [], update: [], step: [] });

  // --- timed rounds, one thread count at a time: every engine of that count once per metric per
  // round, order reversed every other round. Thread counts take turns by phase, not by round: after a
  // run, a 2-thread engine's idle workers spin for a while, and 1-thread runs that followed shared
  // the two cores with them (tiny, same code: node@1 update 1.42x PyTorch interleaved, 1.65x alone).
  // The browser's WASM EP joins the phase of its own thread count. A WebGPU warm-up still running
  // (started after the previous preset) must end first: it would disturb them.
  for (const prev of runs) if (prev.gpuWarm) await prev.gpuWarm;
  const phaseStart = performance.now();
  const phaseDeadline = t0 + phaseEnd * budget * 1000;
  const groups = [...new Set(cpu.map((e) => e.threads))]
    .sort((x, y) => y - x)
    .map((t) => cpu.filter((e) => e.threads === t));
  for (const [gi, group] of groups.entries()) {
    const deadline = phaseStart + ((phaseDeadline - phaseStart) * (gi + 1)) / groups.length;
    const label = `${group[0]!.threads} thread${group[0]!.threads === 1 ? '' : 's'}`;
    for (let r = 0; r < reps; r++) {
      const tr = performance.now();
      const order = r % 2 === 0 ? group : [...group].reverse();
      for (const m of METRICS) for (const e of order) run.samples.get(e.id)![m].push(await e.run(m, r));
      loads.push(loadavg()[0]!);
      const last = (e: Engine, m: Metric) => run.samples.get(e.id)![m].at(-1)!.s.toFixed(2);
      const roundS = (performance.now() - tr) / 1000;
      log(
        `${label}, round ${r + 1}/${reps} (${roundS.toFixed(0)} s, load ${loadavg()[0]!.toFixed(1)}): ` +
          group.map((e) => `${e.id} ${last(e, 'sampling')}/${last(e, 'update')}/${last(e, 'step')} s`).join(', ') +
          ' (sampling/update/step)',
      );
      if (r + 1 < reps && performance.now() + roundS * 1000 > deadline) {
        skipped.push(
          `${presetId}, ${label}: round${r + 2 < reps ? `s ${r + 2}-${reps}` : ` ${reps}`} (time budget ${budget} s)`,
        );
        log(`time budget: stopping ${presetId} at ${label} after ${r + 1} round${r ? 's' : ''}`);
        break;
      }
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
    run.gpuWarm = loadBrowser(b, run, 'webgpu', gpuRows);
    run.gpuWarm.catch(() => undefined);
  }
}

/**
 * Ours vs PyTorch on the preset's batch from the same weights: log-probs, entropy, loss, gradient norm, and the weights
 * after one AdamW step.
 */
async function checkAgainstTorch(peer: TorchPeer, c: PresetCtx, log: (s: string) => void): Promise<CheckResult> {
  const presetId = c.id;
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
  const check: CheckResult = {
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
    `check vs PyTorch (${n} completion tokens): max |Δ logp| ${dl.toExponential(2)}, |Δ loss| ` +
      `${check.abs_loss_diff.toExponential(2)} ` +
      `(loss ${c.ours.loss.toFixed(6)} vs ${lossT.toFixed(6)}), grad norm ${c.ours.gradNorm.toFixed(5)} vs ` +
      `${check.grad_norm_torch.toFixed(5)}, max |Δ entropy| ${de.toExponential(2)}, max |Δ w| after the ` +
      `AdamW step ${dw.toExponential(2)}, packing ${check.pack_matches ? 'identical' : 'DIFFERS'} ` +
      `-> ${check.ok ? 'OK' : `FAILED (tolerance ${TOLERANCE}): no PyTorch ratios for ${presetId}`}`,
  );
  return check;
}
