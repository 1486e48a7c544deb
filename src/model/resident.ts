/**
 * Frozen weights kept resident in a session (Policy.session): with LoRA the base weights never change between
 * Policy.setWeights calls, so the sessions that run most often get them baked in as ONNX initializers
 * (compile.ts) instead of taking them as feeds. onnxruntime-web's WASM EP copies every CPU feed into its heap
 * on each run (538 MB a run at SmolLM2-135M: the prefill, every decode step and the update); a baked weight
 * is copied once, when the session is created, and ONNX Runtime folds what the graph computes from it alone
 * (the tied head's transpose of the embedding, which a fed session transposes every run).
 */
import type { BackendKind, DeviceTensor, Session } from '../engine/backend.ts';
import { type CompiledGraph, compile } from '../engine/compile.ts';
import type { Graph } from '../engine/graph.ts';
import type { Initializer } from '../engine/onnx-export.ts';
import type { ParamSpec } from './param-spec.ts';

type Frozen = ReadonlyMap<string, Float32Array>;

/**
 * The session kinds (a session key's part before ':') that bake a LoRA policy's frozen weights, per backend.
 * Each baked session holds its own copy of the base (and of what ONNX Runtime folds from it, such as the tied
 * head's transpose), so only where it paid in docs/measured.md (SmolLM2-135M with LoRA r = 8): on the WASM EP the
 * decode step, which runs once a token (sampling 2.5x faster). Baking the prefill (once a sampling) and the update
 * (`rl`, bound by the WASM matmul kernels) too changed neither's time and took 1.6 GiB more. onnxruntime-node reads
 * feeds in place and bakes nothing by default (its decode baked: sampling 1.7x faster, peak memory 2.1x); WebGPU is
 * not measured on a GPU yet (its feeds are uploaded every run: a candidate). Scoring (`score`) may run on the
 * reference weights and always takes feeds.
 */
export const RESIDENT_KINDS: Record<BackendKind, readonly string[]> = {
  wasm: ['decode'],
  webgpu: [],
  node: [],
};

/** The frozen weights of a weight map (null when none is frozen: no LoRA, full fine-tuning feeds them all). */
export function frozenWeights(specs: ParamSpec[], w: ReadonlyMap<string, Float32Array>): Frozen | null {
  const frozen = specs.filter((s) => s.frozen);
  return frozen.length ? new Map(frozen.map((s) => [s.name, w.get(s.name)!])) : null;
}

/** Whether two frozen maps hold the same arrays (the same objects: a baked session holds a copy of their values). */
export function sameArrays(a: Frozen | null, b: Frozen | null): boolean {
  if (!a || !b) return a === b;
  return a.size === b.size && [...a].every(([n, x]) => b.get(n) === x);
}

/**
 * `graph` compiled with the frozen weights among its inputs baked in (none when `frozen` is null), and their names.
 * `external`: as external data files (onnx-export.ts Initializer.external), which onnxruntime-web loads with one copy.
 */
export function compileResident(
  graph: Graph,
  frozen: Frozen | null,
  external: boolean,
): { compiled: CompiledGraph; baked: Set<string> } {
  const inits: Initializer[] = [];
  for (const t of graph.inputs) {
    const data = frozen?.get(t.name);
    if (data)
      inits.push({
        name: t.name,
        dtype: 'float32',
        shape: t.shape,
        data,
        ...(external ? { external: `w${inits.length}` } : {}),
      });
  }
  return { compiled: compile(graph, inits), baked: new Set(inits.map((i) => i.name)) };
}

/** `session`, with the feeds it has baked in dropped from every run (callers keep passing all parameters). */
export function withoutFeeds(session: Session, baked: ReadonlySet<string>): Session {
  if (!baked.size) return session;
  return {
    graph: session.graph,
    run(feeds: Record<string, DeviceTensor>) {
      const kept: Record<string, DeviceTensor> = {};
      for (const [name, t] of Object.entries(feeds)) if (!baked.has(name)) kept[name] = t;
      return session.run(kept);
    },
    release: () => session.release(),
  };
}
