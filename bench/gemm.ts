/**
 * One matmul timed on any backend: onnxruntime-node's CPU kernels (MLAS) and the browser's WASM EP (MLAS built
 * for 128-bit WebAssembly SIMD); the PyTorch peers time the same shapes (bench/torch_peer.py mlp_gemm,
 * bench/peft_peer.py gemm). The GPT presets' is the small model's MLP on a 64 x 64 update grid,
 * [4096,256] x [256,1024]; the Llama presets' are their model's (llamaGemms), with B baked in as the resident
 * weights are (src/model/resident.ts). Most of an update is such matmuls, so these ratios bound what graph-level
 * changes can gain against PyTorch, and the WASM step against the Node step. No Node APIs here.
 */
import type { Backend } from '../src/engine/backend.ts';
import { compile } from '../src/engine/compile.ts';
import { Graph } from '../src/engine/graph.ts';
import type { ModelConfig } from '../src/model/config.ts';

export interface GemmShape {
  m: number;
  k: number;
  n: number;
}

export const MLP_GEMM: GemmShape = { m: 4096, k: 256, n: 1024 };

/**
 * A Llama preset's matmuls at its batch (bench/llama-preset.ts; at SmolLM2-135M's shape: 2 prompts passed once + 4
 * rows of 16 completion tokens = 96 token rows in the update, [96,576]x[576,1536] and [96,1536]x[1536,576]; 64
 * completion rows through the head, [64,576]x[576,49152]; 4 rows a decode step, [4,576]x[576,1536]).
 */
export function llamaGemms(
  c: ModelConfig,
  s: { prompts: number; promptLen: number; rows: number; completionLen: number },
): (GemmShape & { what: string })[] {
  const tokens = s.prompts * s.promptLen + s.rows * s.completionLen;
  return [
    { m: tokens, k: c.dModel, n: c.dFF, what: "the update's gate/up projection" },
    { m: tokens, k: c.dFF, n: c.dModel, what: 'its down projection' },
    { m: s.rows * s.completionLen, k: c.dModel, n: c.vocabSize, what: 'its LM head' },
    { m: s.rows, k: c.dModel, n: c.dFF, what: "a decode step's gate/up projection" },
  ];
}

/** GFLOP/s of [m,k] x [k,n] over about half a second; `resident`: B baked into the session, else fed each run. */
export async function gemmGflops(backend: Backend, shape: GemmShape = MLP_GEMM, resident = false): Promise<number> {
  const { m, k, n } = shape;
  const g = new Graph();
  g.output(g.matmul(g.input('a', 'float32', [m, k]), g.input('b', 'float32', [k, n])), 'c');
  const rand = (len: number) => Float32Array.from({ length: len }, (_, i) => Math.sin(i));
  const b = rand(k * n);
  const external = backend.kind === 'node' ? {} : { external: 'b' };
  const compiled = compile(g, resident ? [{ name: 'b', dtype: 'float32', shape: [k, n], data: b, ...external }] : []);
  const session = await backend.createSession(compiled, { label: 'gemm' });
  const feeds = {
    a: backend.tensor('float32', rand(m * k), [m, k]),
    ...(resident ? {} : { b: backend.tensor('float32', b, [k, n]) }),
  };
  const once = async () => backend.dispose((await session.run(feeds))['c']!);
  for (let i = 0; i < 3; i++) await once();
  let reps = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 500) {
    await once();
    reps++;
  }
  const seconds = (performance.now() - t0) / 1000;
  await session.release();
  return (2 * m * k * n * reps) / seconds / 1e9;
}
