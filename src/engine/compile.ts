import type { Graph } from './graph.ts';
import { exportOnnx, initializerBytes, liveNodes, type Initializer } from './onnx-export.ts';
import type { DType, Shape } from './shape.ts';

export interface Signature {
  name: string;
  dtype: DType;
  shape: Shape;
}

/** A graph serialised to ONNX together with the signature its feeds are checked against. */
export interface CompiledGraph {
  bytes: Uint8Array;
  inputs: Signature[];
  outputs: Signature[];
  nodeCount: number;
  /** The external data files of initializers baked with `external` (onnx-export.ts), for the session to load. */
  externalData?: { path: string; data: Uint8Array }[];
}

const sig = (t: { name: string; dtype: DType; shape: Shape }): Signature => ({
  name: t.name,
  dtype: t.dtype,
  shape: [...t.shape],
});

export function compile(graph: Graph, initializers: Initializer[] = []): CompiledGraph {
  if (graph.outputs.length === 0) throw new Error('compile: the graph has no outputs');
  const baked = new Set(initializers.map((i) => i.name));
  const external = initializers.filter((i) => i.external !== undefined);
  return {
    bytes: exportOnnx(graph, { initializers }),
    inputs: graph.inputs.filter((t) => !baked.has(t.name)).map(sig),
    outputs: graph.outputs.map(sig),
    nodeCount: liveNodes(graph).length,
    ...(external.length
      ? { externalData: external.map((i) => ({ path: i.external!, data: initializerBytes(i) })) }
      : {}),
  };
}
