/** The results JSON and the markdown table of a `rlvr bench --presets smollm2-135m` run (bench/llama.ts). */
import { gemmText, updateForwardFlops } from './llama-gemm.ts';
import { SMOLLM2_135M_CONFIG } from './llama-preset.ts';
import { fmtNum, median, TOLERANCE } from './presets.ts';
import type { LlamaRun } from './session.ts';

const med = (xs: (number | null)[]) => {
  const ys = xs.filter((x): x is number => x !== null && Number.isFinite(x));
  return ys.length ? median(ys) : null;
};
const r3 = (x: number | null) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 1000) / 1000);

/** Medians and ratios of a Llama run, for the results JSON (key: the preset id). */
export function llamaSummary(run: LlamaRun): Record<string, unknown> {
  const stats = Object.fromEntries(
    Object.entries(run.engines).map(([id, e]) => [
      id,
      {
        label: e.label,
        threads: e.threads,
        sampling_tokens_per_s: med(e.sampling.map((x) => x.tokens / x.s)),
        update_s: med(e.update.map((x) => x.s)),
        update_peak_rss_mib: med(e.update.map((x) => x.peak_rss_mib)),
        update_rss_before_mib: med(e.update.map((x) => x.rss_before_mib)),
        sampling_peak_rss_mib: med(e.sampling.map((x) => x.peak_rss_mib)),
        rounds: e.update.length,
        runs: { sampling: e.sampling, update: e.update },
      },
    ]),
  );
  const ratios: Record<string, Record<string, number | null>> = {};
  for (const [id, s] of Object.entries(stats)) {
    if (id.startsWith('torch@')) continue;
    const t = run.engines[id]!.threads;
    const peer = stats[`torch@${t}`];
    const ok = run.checks[`torch@${t}`]?.ok ?? false;
    ratios[id] = {
      sampling_vs_pytorch:
        ok && peer && s.sampling_tokens_per_s && peer.sampling_tokens_per_s
          ? r3(s.sampling_tokens_per_s / peer.sampling_tokens_per_s)
          : null,
      update_speed_vs_pytorch: ok && peer && s.update_s && peer.update_s ? r3(peer.update_s / s.update_s) : null,
      update_peak_memory_vs_pytorch:
        peer && s.update_peak_rss_mib && peer.update_peak_rss_mib
          ? r3(s.update_peak_rss_mib / peer.update_peak_rss_mib)
          : null,
    };
  }
  return {
    parameters: run.parameters,
    trainable_parameters: run.trainable,
    weights: 'random (initParams seed 1; SmolLM2-135M config.json shape, no checkpoint or tokenizer)',
    model: run.model,
    lora: run.model.lora,
    shape: run.shape,
    units: {
      sampling_tokens_per_s:
        'rows x decode positions per second (KV cache; EOS ignored by PyTorch, rare with random weights)',
      update_s: 'seconds of one GRPO update (scoring + loss + backward + AdamW on the adapters)',
      peak_rss_mib:
        "peak resident set of the engine's process during the call (VmHWM reset just before); node: the " +
        "whole bench process, wasm: Chromium's renderer",
    },
    peer: run.peer,
    engines: stats,
    ratios,
    checks: run.checks,
    gemm_gflops: run.gemm,
    update_matmul_gflop: r3((2 * updateForwardFlops(run.model, run.shape)) / 1e9),
    first_run_ms: run.first_run_ms,
    skipped: run.skipped,
  };
}

/** Said when the run kept only the first hidden layers (`rlvr bench --layers N`). */
function layersNote(run: LlamaRun): string {
  const all = SMOLLM2_135M_CONFIG.num_hidden_layers;
  return run.model.nLayers < all ? ` with ${run.model.nLayers} of its ${all} layers` : '';
}

/** The markdown table of a Llama run. */
export function llamaTable(run: LlamaRun): string[] {
  const s = llamaSummary(run);
  const stats = s.engines as Record<string, Record<string, number | null | string>>;
  const ratios = s.ratios as Record<string, Record<string, number | null>>;
  const n = (x: unknown, suffix = '') => (typeof x === 'number' ? `${fmtNum(x)}${suffix}` : '—');
  const md = [
    `**${run.id}** (SmolLM2-135M's shape${layersNote(run)}, random weights: ${(run.parameters / 1e6).toFixed(1)}M ` +
      `parameters; LoRA r=${run.model.lora!.r}, alpha ${run.model.lora!.alpha} on ` +
      `${run.model.lora!.targets.join(', ')}: ${(run.trainable / 1e6).toFixed(2)}M trainable). ${run.shape.prompts} ` +
      `prompts × ${run.shape.generations} completions = ${run.shape.rows} rows, prompt ${run.shape.promptLen} ` +
      `+ completion ${run.shape.completionLen} tokens (${run.shape.update_tokens} completion tokens per ` +
      `update). Medians over ${Math.max(0, ...Object.values(run.engines).map((e) => e.update.length))} ` +
      'alternating rounds.',
    '',
    '| engine | sampling tok/s | GRPO update s | update peak RSS MiB | sampling vs PyTorch | update speed ' +
      'vs PyTorch | update peak memory vs PyTorch |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const [id, e] of Object.entries(stats)) {
    const r = ratios[id];
    md.push(
      `| ${String(e.label)} | ${n(e.sampling_tokens_per_s)} | ${n(e.update_s)} | ${n(e.update_peak_rss_mib)} ` +
        `| ${r ? n(r.sampling_vs_pytorch, '×') : ''} | ${r ? n(r.update_speed_vs_pytorch, '×') : ''} | ` +
        `${r ? n(r.update_peak_memory_vs_pytorch, '×') : ''} ` +
        '|',
    );
  }
  const checks = Object.entries(run.checks).map(
    ([k, c]) =>
      `${k}: max |Δ logp| ${c.max_abs_logp_diff.toExponential(1)}, |Δ loss| ${c.abs_loss_diff.toExponential(1)} ` +
      `${c.ok ? 'OK' : 'FAILED'}`,
  );
  if (checks.length)
    md.push(
      '',
      `Checks on the first update (tolerance ${TOLERANCE}; ratios against PyTorch only where it passed): ` +
        `${checks.join('; ')}.`,
    );
  for (const t of new Set(run.gemm.map((g) => g.threads)))
    md.push(
      '',
      `The matmul kernels at this shape (\`bench/gemm.ts\`, B resident), ${t} thread${t === 1 ? '' : 's'}: ` +
        `${run.gemm
          .filter((g) => g.threads === t)
          .map(gemmText)
          .join('; ')}.`,
    );
  const f = updateForwardFlops(run.model, run.shape) / 1e9;
  md.push(
    '',
    `One update's matmuls: ${(2 * f).toFixed(1)} GFLOP (the forward ${f.toFixed(1)}, the backward's input gradients ` +
      'as many; no weight gradients for the frozen base).',
  );
  return md;
}
