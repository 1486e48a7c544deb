import { GraphError, type Graph, type Tensor } from './graph.ts';
import { gradRules } from './gradients.ts';

/**
 * Reverse-mode autodiff: appends to `graph` the ops that compute d(loss)/d(wrt[i]) and returns them.
 * Only nodes on a path from some `wrt` to the loss are differentiated. `seed` is the gradient of the
 * loss (default 1); the loss may be any float tensor when a seed of its shape is given.
 */
export function gradients(graph: Graph, loss: Tensor, wrt: Tensor[], seed?: Tensor): Tensor[] {
  if (graph.forwardOnly)
    throw new GraphError('gradients: this graph was built forward-only (its ops are laid out for inference)');
  if (loss.dtype !== 'float32') throw new GraphError(`gradients: loss "${loss.name}" must be float32`);
  if (!seed && loss.shape.length !== 0)
    throw new GraphError(`gradients: loss "${loss.name}" must be a scalar (shape [${loss.shape}]) or come with a seed`);

  const dependsOnWrt = new Set(wrt.map((t) => t.id));
  for (const node of graph.nodes) {
    if (node.inputs.some((t) => dependsOnWrt.has(t.id))) node.outputs.forEach((t) => dependsOnWrt.add(t.id));
  }
  if (!dependsOnWrt.has(loss.id))
    throw new GraphError(`gradients: loss "${loss.name}" does not depend on any of the requested tensors`);

  const grads = new Map<number, Tensor>();
  grads.set(loss.id, seed ?? graph.scalar(1));
  const lossIndex = graph.nodes.findIndex((n) => n.outputs.some((t) => t.id === loss.id));
  for (let i = lossIndex; i >= 0; i--) {
    const node = graph.nodes[i]!;
    const dy = grads.get(node.outputs[0]!.id);
    if (!dy) continue;
    const wants = (k: number) => {
      const t = node.inputs[k]!;
      return t.dtype === 'float32' && dependsOnWrt.has(t.id);
    };
    if (!node.inputs.some((_, k) => wants(k))) continue;
    const accumulate = (t: Tensor, dx: Tensor) => {
      const prev = grads.get(t.id);
      grads.set(t.id, prev ? graph.add(prev, dx) : dx);
    };
    const custom = graph.customGradients.get(node.outputs[0]!.id);
    if (custom) {
      // The hand-written rule replaces the chain rule through every op between x and y.
      // A null rule (stopGradient) ends the path here.
      if (custom.rule && custom.x.dtype === 'float32' && dependsOnWrt.has(custom.x.id))
        accumulate(custom.x, custom.rule(dy));
      continue;
    }
    const rule = gradRules[node.op];
    if (!rule) throw new GraphError(`gradients: no gradient rule for op ${node.op}`);
    const dxs = rule(graph, node, dy, wants);
    dxs.forEach((dx, k) => {
      if (dx && wants(k)) accumulate(node.inputs[k]!, dx);
    });
  }
  return wrt.map((t) => grads.get(t.id) ?? graph.expand(graph.scalar(0), [...t.shape]));
}
