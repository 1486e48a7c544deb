/**
 * `rlvr bench --presets smollm2-135m`: the SmolLM2-135M shape (its config.json, random weights) with
 * LoRA r = 8 on all seven of PEFT's Llama projections, timed on onnxruntime-node, Chromium's WASM EP
 * and PyTorch eager + PEFT (bench/peft_peer.py, the project's .venv-py) in the same run, on the same
 * weights, prompts and update batch:
 *   sampling  rows x decode positions per second, KV-cache sampler (Policy.sample; transformers' DynamicCache)
 *   update    seconds of one GRPO update: scoring + loss + backward + AdamW on the adapters only
 *   memory    peak resident set of the engine's process during each of them (Linux VmHWM, reset just before)
 * No tokenizer: the prompts are seeded random token ids within the vocabulary, so no task and no whole step.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createNodeBackend } from '../src/engine/backend-node.ts';
import { saveWeights } from '../src/model/checkpoint.ts';
import { initParams, parameterCount, trainableSpecs } from '../src/model/transformer.ts';
import type { UpdateBatch } from './batches.ts';
import { BenchRunner } from './core.ts';
import { LLAMA_SHAPE, llamaPresetModel, llamaRows, llamaRunConfig, llamaUpdateBatch } from './llama-preset.ts';
import { fmtNum, ROOT, TOLERANCE, WORK } from './presets.ts';
import type { Bench, LlamaCheck, LlamaPresetId, LlamaRun } from './session.ts';

export type { LlamaPresetId, LlamaRun };
import { TorchPeer } from './torch.ts';
import { timeLlamaGemms } from './llama-gemm.ts';
import { type LlamaEngine, NodeLlama, PEFT_PYTHON, PeftLlama, WasmLlama } from './llama-engines.ts';

export { PEFT_PYTHON };
export {
  DRY_LLAMA,
  LLAMA_LORA,
  LLAMA_SHAPE,
  llamaPresetModel,
  llamaRows,
  llamaRunConfig,
  SMOLLM2_135M_CONFIG,
} from './llama-preset.ts';
export { llamaSummary, llamaTable } from './llama-report.ts';

export const LLAMA_PRESETS: readonly LlamaPresetId[] = ['smollm2-135m'];
export const isLlamaPreset = (p: string): p is LlamaPresetId => (LLAMA_PRESETS as readonly string[]).includes(p);

function compare(
  ours: { logp: number[]; loss: number; gradNorm: number },
  b: UpdateBatch,
  theirs: { logp: number[]; loss: number; grad_norm: number },
): LlamaCheck {
  let d = 0;
  let n = 0;
  for (let i = 0; i < b.mask.length; i++) {
    if (!b.mask[i]) continue;
    n++;
    d = Math.max(d, Math.abs(ours.logp[i]! - theirs.logp[i]!));
  }
  const dl = Math.abs(ours.loss - theirs.loss);
  const dg = Math.abs(ours.gradNorm - theirs.grad_norm) / Math.max(1e-8, theirs.grad_norm);
  return {
    ok: d <= TOLERANCE && dl <= TOLERANCE && dg <= 1e-3,
    max_abs_logp_diff: d,
    abs_loss_diff: dl,
    loss_ours: ours.loss,
    loss_torch: theirs.loss,
    grad_norm_ours: ours.gradNorm,
    grad_norm_torch: theirs.grad_norm,
    tokens_compared: n,
  };
}

/**
 * Sets up, checks and times one Llama preset on the CPU engines (one thread count at a time, engines alternating); adds
 * it to `b.llamaRuns`.
 */
export async function runLlamaPreset(b: Bench, id: LlamaPresetId, model = llamaPresetModel(id)): Promise<void> {
  const { log, opts } = b;
  const { engines, threadList, reps } = opts;
  const config = llamaRunConfig(model);
  const parameters = parameterCount(model);
  const trainable = trainableSpecs(model).reduce((a, s) => a + s.shape.reduce((x, y) => x * y, 1), 0);
  const rows = llamaRows(model);
  const layout = { promptLen: LLAMA_SHAPE.promptLen, completionLen: LLAMA_SHAPE.completionLen };
  const fixed = { rows, layout, ...(opts.resident ? { resident: opts.resident } : {}) };
  const run: LlamaRun = {
    id,
    model,
    parameters,
    trainable,
    shape: { ...LLAMA_SHAPE, rows: rows.length, update_tokens: 0 },
    engines: {},
    checks: {},
    first_run_ms: {},
    skipped: [],
    peer: null,
    gemm: [],
  };
  b.llamaRuns.push(run);
  log(
    `== preset ${id}: ${parameters.toLocaleString('en-US')} parameters (random weights, seed 1), LoRA ` +
      `r=${model.lora!.r} ` +
      `alpha ${model.lora!.alpha} on ${model.lora!.targets.join(',')}: ${trainable.toLocaleString('en-US')} ` +
      `trainable; ${LLAMA_SHAPE.prompts} prompts x ${LLAMA_SHAPE.generations} = ${rows.length} rows, prompt ` +
      `${LLAMA_SHAPE.promptLen} + completion ${LLAMA_SHAPE.completionLen} tokens`,
  );
  const tw = performance.now();
  const weights = initParams(model, 1);
  const weightsFile = join(WORK, `${id}-${model.nLayers}x${model.dModel}-seed1.safetensors`);
  writeFileSync(weightsFile, saveWeights(model, weights, { name: `${id}-random-seed1` }));
  run.first_run_ms.weights_init_and_save = performance.now() - tw;
  const batchFile = join(WORK, `batch-${id}.json`);
  const samplingFile = join(WORK, `sampling-${id}.json`);
  writeFileSync(samplingFile, JSON.stringify({ rows, temperature: config.temperature }));

  let batch: UpdateBatch | null = null;
  let ours: { logp: number[]; loss: number; gradNorm: number } | null = null;
  let positions = LLAMA_SHAPE.completionLen;
  const wasmWanted = !!b.browser && engines.has('wasm');
  let wasmDone = false;
  if (engines.has('webgpu'))
    run.skipped.push(`${id}: WebGPU (no GPU on this machine; a software adapter at 135M would take hours)`);

  for (const t of threadList) {
    const group: LlamaEngine[] = [];
    // onnxruntime-node: compile (first sampling and update), the batch from its first sampling
    const tn = performance.now();
    const runner = await BenchRunner.create(createNodeBackend(t), model, weights, config, fixed);
    const s0 = await runner.sample(1);
    run.first_run_ms[`node@${t}_load_and_first_sampling`] = performance.now() - tn;
    positions = s0.genSteps;
    if (!batch) {
      batch = llamaUpdateBatch(layout, config, s0.prompts, s0.completions, LLAMA_SHAPE.generations);
      run.shape.update_tokens = batch.tokens_counted;
      writeFileSync(batchFile, JSON.stringify(batch));
    }
    runner.setBatch(batch);
    const tu = performance.now();
    const first = await runner.checkValues();
    run.first_run_ms[`node@${t}_first_update`] = performance.now() - tu;
    ours ??= { logp: first.logp, loss: first.loss, gradNorm: first.gradNorm };
    group.push(new NodeLlama(runner, t));
    log(
      `node@${t}: loaded and first sampling (compiles) ` +
        `${(run.first_run_ms[`node@${t}_load_and_first_sampling`]! / 1000).toFixed(1)} ` +
        `s, first update ${(run.first_run_ms[`node@${t}_first_update`]! / 1000).toFixed(1)} s`,
    );

    // PyTorch + PEFT: a fresh process per thread count; its first update is the check against ours
    let peer: TorchPeer | null = null;
    if (engines.has('torch')) {
      const tp = performance.now();
      peer = TorchPeer.start(join(ROOT, 'bench'), t, 'peft_peer.py', PEFT_PYTHON);
      const init = await peer.call({ cmd: 'init', threads: t });
      const load = await peer.call({
        cmd: 'load',
        id: 'llama',
        config: model,
        weights: weightsFile,
        lr: batch.lr,
        adam: {
          beta1: config.adam_beta1,
          beta2: config.adam_beta2,
          eps: 1e-8,
          weightDecay: config.weight_decay,
          maxGradNorm: config.max_grad_norm,
        },
      });
      const theirs = await peer.call({ cmd: 'update', id: 'llama', batch: batchFile, values: true });
      // one untimed sampling too, as ours had (transformers' first call sets up its caches)
      await peer.call({ cmd: 'sample', id: 'llama', batch: samplingFile, steps: positions, seed: 0 });
      run.first_run_ms[`torch@${t}_load_first_update_and_sampling`] = performance.now() - tp;
      const check = compare(ours, batch, theirs as unknown as { logp: number[]; loss: number; grad_norm: number });
      run.checks[`torch@${t}`] = check;
      run.peer ??= { ...init, ...load };
      log(
        `PyTorch ${String(init.torch)} + transformers ${String(init.transformers)} + PEFT ${String(init.peft)} ` +
          `(${String(init.blas)}, ${String(init.threads)} threads, attention ` +
          `${String(load.attn_implementation)}): ${String(load.trainable)} trainable of ` +
          `${String(load.parameters)}; check on the first update (${check.tokens_compared} tokens): max |Δ ` +
          `logp| ${check.max_abs_logp_diff.toExponential(2)}, |Δ loss| ` +
          `${check.abs_loss_diff.toExponential(2)}, grad norm ${check.grad_norm_ours.toFixed(5)} vs ` +
          `${check.grad_norm_torch.toFixed(5)} ` +
          `-> ${check.ok ? 'OK' : `FAILED (tolerance ${TOLERANCE}): no PyTorch ratios`}`,
      );
      group.push(
        new PeftLlama(
          peer,
          t,
          `${String(init.torch)} + PEFT ${String(init.peft)} (transformers ${String(init.transformers)}, ` +
            `${String(init.blas)})`,
          { batch: batchFile, sampling: samplingFile },
          () => positions,
          rows.length,
        ),
      );
    }

    // the browser's WASM EP joins the rounds of its own thread count
    if (wasmWanted && !wasmDone && t === b.wasmThreads) {
      wasmDone = true;
      const tl = performance.now();
      const url = b.browser!.serve(`${id}.safetensors`, weightsFile);
      await b.browser!.call('wasm', {
        cmd: 'load',
        preset: id,
        model,
        weightsUrl: url,
        config,
        fixed,
      });
      await b.browser!.call('wasm', { cmd: 'sample', preset: id, seed: 1 });
      await b.browser!.call('wasm', { cmd: 'setBatch', preset: id, batch });
      const r = await b.browser!.call('wasm', { cmd: 'check', preset: id });
      run.first_run_ms.wasm_load_and_first_update = performance.now() - tl;
      const lp = r.logp as number[];
      let d = 0;
      for (let i = 0; i < batch.mask.length; i++) if (batch.mask[i]) d = Math.max(d, Math.abs(lp[i]! - ours.logp[i]!));
      run.checks.wasm_vs_node = {
        ok: d <= TOLERANCE && Math.abs((r.loss as number) - ours.loss) <= TOLERANCE,
        max_abs_logp_diff: d,
        abs_loss_diff: Math.abs((r.loss as number) - ours.loss),
        loss_ours: ours.loss,
        loss_torch: r.loss as number,
        grad_norm_ours: ours.gradNorm,
        grad_norm_torch: r.gradNorm as number,
        tokens_compared: batch.tokens_counted,
      };
      log(
        `browser wasm: loaded, first sampling and update ${((performance.now() - tl) / 1000).toFixed(1)} ` +
          `s; vs node: max |Δ logp| ${d.toExponential(2)}`,
      );
      group.push(new WasmLlama(b, id));
    }

    run.gemm.push(...(await timeLlamaGemms(b, run, t, peer)));
    for (const e of group) run.engines[e.id] = { label: e.label, threads: e.threads, sampling: [], update: [] };
    for (let r = 0; r < reps; r++) {
      const tr = performance.now();
      const order = r % 2 === 0 ? group : [...group].reverse();
      for (const e of order) run.engines[e.id]!.sampling.push(await e.sample(r));
      for (const e of order) run.engines[e.id]!.update.push(await e.update());
      b.loads.push((await import('node:os')).loadavg()[0]!);
      log(
        `${id}, ${t} thread${t === 1 ? '' : 's'}, round ${r + 1}/${reps} ` +
          `(${((performance.now() - tr) / 1000).toFixed(0)} ` +
          's): ' +
          group
            .map((e) => {
              const x = run.engines[e.id]!;
              return (
                `${e.id} sampling ${x.sampling.at(-1)!.s.toFixed(2)} s, update ${x.update.at(-1)!.s.toFixed(2)} ` +
                `s (peak ${fmtNum(x.update.at(-1)!.peak_rss_mib ?? Number.NaN)} MiB)`
              );
            })
            .join('; '),
      );
    }
    for (const e of group) await e.finish();
  }
  if (wasmWanted && !wasmDone)
    run.skipped.push(`${id}: WASM (its ${b.wasmThreads} threads are not in --threads ${threadList.join(',')})`);
  b.skipped.push(...run.skipped);
}

// ------------------------------------------------------------------------------------------- report
