/**
 * One matmul of the small model's MLP shape on a 64 x 64 update grid, [4096,256] x [256,1024], timed
 * on any backend: onnxruntime-node's CPU kernels (MLAS) and the browser's WASM EP (MLAS built for
 * 128-bit WebAssembly SIMD); the PyTorch peer times the same on OpenBLAS (bench/torch_peer.py
 * mlp_gemm). Most of an update is such matmuls, so these ratios bound what graph-level changes can
 * gain against PyTorch, and the WASM step against the Node step. No Node APIs here.
 */
import type { Backend } from '../src/engine/backend.ts';
import { compile } from '../src/engine/compile.ts';
import { Graph } from '../src/engine/graph.ts';

export const MLP_GEMM = { m: 4096, k: 256, n: 1024 };

export async function gemmGflops(backend: Backend): Promise<number> {
  const { m, k, n } = MLP_GEMM;
  const g = new Graph();
  g.output(g.matmul(g.input('a', 'float32', [m, k]), g.input('b', 'float32', [k, n])), 'c');
  const session = await backend.createSession(compile(g), { label: 'gemm' });
  const rand = (len: number) => Float32Array.from({ length: len }, (_, i) => Math.sin(i));
  const feeds = {
    a: backend.tensor('float32', rand(m * k), [m, k]),
    b: backend.tensor('float32', rand(k * n), [k, n]),
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
