/**
 * The matmul kernels at the Llama presets' shapes (gemm.ts llamaGemms) on each engine of a thread count, and the
 * matmul FLOPs of one GRPO update at the preset's batch: with both, an update's seconds can be set against what its
 * matmuls alone take at each engine's GFLOP/s (docs/measured.md, SmolLM2-135M).
 */
import { createNodeBackend } from '../src/engine/backend-node.ts';
import type { ModelConfig } from '../src/model/config.ts';
import { gemmGflops, llamaGemms } from './gemm.ts';
import type { Bench, LlamaGemm, LlamaRun } from './session.ts';
import type { TorchPeer } from './torch.ts';

/** Times a run's llamaGemms on onnxruntime-node, the PyTorch peer (if any) and the browser's WASM EP (its threads). */
export async function timeLlamaGemms(b: Bench, run: LlamaRun, t: number, peer: TorchPeer | null): Promise<LlamaGemm[]> {
  const node = createNodeBackend(t);
  const wasm = !!b.browser && b.opts.engines.has('wasm') && t === b.wasmThreads;
  const out: LlamaGemm[] = [];
  for (const s of llamaGemms(run.model, run.shape)) {
    const mlas = await gemmGflops(node, s, true);
    const torch = peer ? ((await peer.call({ cmd: 'gemm', shapes: [[s.m, s.k, s.n]] })).gflops as number[])[0]! : null;
    const w = wasm
      ? ((await b.browser!.call('wasm', { cmd: 'gemm', shape: { m: s.m, k: s.k, n: s.n }, resident: true }))
          .gflops as number)
      : null;
    out.push({ threads: t, m: s.m, k: s.k, n: s.n, what: s.what, mlas, torch, wasm: w });
    b.log(`${gemmText(out.at(-1)!)} (${s.what}, ${t} thread${t === 1 ? '' : 's'})`);
  }
  return out;
}

/** `[m,k]x[k,n] GFLOP/s: onnxruntime-node (MLAS) x, PyTorch y, browser WASM z` (the engines measured). */
export function gemmText(g: LlamaGemm): string {
  const parts = [`onnxruntime-node (MLAS) ${g.mlas.toFixed(1)}`];
  if (g.torch !== null) parts.push(`PyTorch ${g.torch.toFixed(1)}`);
  if (g.wasm !== null) parts.push(`browser WASM ${g.wasm.toFixed(1)}`);
  return `[${g.m},${g.k}]x[${g.k},${g.n}] GFLOP/s: ${parts.join(', ')}`;
}

/**
 * The forward matmul FLOPs of one update (src/model/transformer.ts completionHidden: each distinct prompt passed
 * once, every row's completion tokens, the head over the completion tokens only). With the base frozen its backward
 * takes the input gradients of the same matmuls (as many FLOPs) and no weight gradients; LoRA's rank-r products add
 * under 2 %.
 */
export function updateForwardFlops(c: ModelConfig, shape: LlamaRun['shape']): number {
  const d = c.dModel;
  const kv = (d / c.nHeads) * (c.nKvHeads ?? c.nHeads);
  const perToken = d * d + 2 * d * kv + d * d + 3 * d * c.dFF;
  const tokens = shape.prompts * shape.promptLen + shape.rows * shape.completionLen;
  const attention =
    2 *
    d *
    (shape.prompts * shape.promptLen ** 2 + shape.rows * shape.completionLen * (shape.promptLen + shape.completionLen));
  const head = shape.rows * shape.completionLen * d * c.vocabSize;
  return 2 * (c.nLayers * (tokens * perToken + attention) + head);
}
