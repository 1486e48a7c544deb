// The graphs the placement check (mode=placement) inspects on WebGPU: every graph the app runs.
// Add a graph here when the app gains one; e2e/engine.spec.mjs then requires it to have no CPU node.
import { compile, type CompiledGraph } from '../../src/engine/compile.ts';
import { Graph } from '../../src/engine/graph.ts';
import type { OpName } from '../../src/engine/ops.ts';
import { defaultAdamW } from '../../src/engine/optimizer.ts';
import { buildDecodeGraph, buildPrefillGraph, buildScoreGraph, buildSftGraph } from '../../src/model/graphs.ts';
import { buildRlGraph } from '../../src/rl/objective.ts';
import { buildTinyTraining, tinyTrainingModel } from '../../src/model/tiny-training.ts';

const c = tinyTrainingModel;

export const appGraphs: Record<string, () => CompiledGraph> = {
  'tiny-training': () => compile(buildTinyTraining(c).graph),
  score: () => compile(buildScoreGraph(c, 2, 1, c.contextLength >> 1, c.contextLength)),
  prefill: () => compile(buildPrefillGraph(c, 1, c.contextLength >> 1)),
  'decode (device cache)': () => compile(buildDecodeGraph(c, 1, 2, c.contextLength >> 1, c.contextLength >> 1, true)),
  'decode (host cache)': () => compile(buildDecodeGraph(c, 1, 2, c.contextLength >> 1, c.contextLength >> 1, false)),
  sft: () => compile(buildSftGraph(c, 2, c.contextLength, defaultAdamW)),
  'rl update': () => compile(buildRlGraph(c, 2, 1, c.contextLength >> 1, c.contextLength, defaultAdamW)),
};

/**
 * The negative control: a graph with one op the WebGPU EP has no kernel for (`Det` by default), so ORT
 * must place it on the CPU EP. The node is built as an op our builder knows and then renamed, since the
 * builder (rightly) refuses ops outside the WebGPU list.
 */
export function cpuOnlyGraph(op: string): CompiledGraph {
  const g = new Graph();
  const x = g.input('x', 'float32', [3, 3]);
  const y = g.reduceSum(x, [0, 1], false);
  g.output(g.mul(y, 2), 'y');
  const i = g.nodes.findIndex((n) => n.op === 'ReduceSum');
  const node = g.nodes[i]!;
  // Deliberately an op outside the table (OpName): the builder would refuse it, the exported ONNX keeps it.
  g.nodes[i] = { op: op as OpName, inputs: node.inputs, outputs: node.outputs, attrs: {} };
  return compile(g);
}

export interface Placement {
  /** Saw ORT's "Node placements" report (printed at log severity VERBOSE). */
  reported: boolean;
  /** Execution provider -> node count and, when ORT lists them, "OpType (node name)". */
  eps: Record<string, { count: number; nodes: string[] }>;
  /** ORT's warning "Some nodes were not assigned to the preferred execution providers" (printed at WARNING). */
  notAssignedWarning: boolean;
  /** "webgpu kernel not found in registries for Op type: X node name: Y" lines (INFO). */
  kernelNotFound: string[];
}

// ANSI colour codes ORT puts around warnings.
const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '').replace(/\[[0-9;]*m/g, '');

/**
 * Reads ORT's placement report from its log lines (session_state.cc, VerifyEachNodeIsAssignedToAnEp):
 *   " Node(s) placed on [CPUExecutionProvider]. Number of nodes: 6" then "  Reshape (n77_Reshape)" ...
 *   " All nodes placed on [WebGpuExecutionProvider]. Number of nodes: 1002"
 */
export function parsePlacement(lines: string[]): Placement {
  const p: Placement = { reported: false, eps: {}, notAssignedWarning: false, kernelNotFound: [] };
  let current: string | null = null;
  for (const raw of lines) {
    const line = strip(raw);
    const k = /kernel not found in registries for Op type: (\S+) node name: (\S+)/.exec(line);
    if (k) p.kernelNotFound.push(`${k[1]} (${k[2]})`);
    if (/Some nodes were not assigned to the preferred execution providers/.test(line)) p.notAssignedWarning = true;
    const at = line.indexOf('VerifyEachNodeIsAssignedToAnEp]');
    if (at < 0) {
      current = null;
      continue;
    }
    const rest = line.slice(at + 'VerifyEachNodeIsAssignedToAnEp]'.length);
    if (/Node placements/.test(rest)) p.reported = true;
    const ep = /placed on \[(\w+)\]\. Number of nodes: (\d+)/.exec(rest);
    if (ep) {
      current = ep[1]!;
      p.eps[current] = { count: Number(ep[2]), nodes: [] };
      continue;
    }
    const node = /^\s{3,}(\S+) \((.*)\)\s*$/.exec(rest);
    if (node && current) p.eps[current]!.nodes.push(`${node[1]} (${node[2]})`);
    else current = null;
  }
  p.kernelNotFound = [...new Set(p.kernelNotFound)];
  return p;
}
