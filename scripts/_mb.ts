import { Graph } from '../src/engine/graph.ts';
import { compile } from '../src/engine/compile.ts';
import { createNodeBackend } from '../src/engine/backend-node.ts';
const be = createNodeBackend(1);
const shape = [64, 48, 256];
for (const kind of ['mul', 'erf', 'mul-chain8']) {
  const g = new Graph();
  const x = g.input('x', 'float32', shape);
  let y = x;
  if (kind === 'mul') y = g.mul(x, 0.5);
  if (kind === 'erf') y = g.erf(x);
  if (kind === 'mul-chain8') for (let i = 0; i < 8; i++) y = g.mul(y, 0.5 + i);
  g.output(g.reduceSum(y, [0, 1, 2], false), 'y');
  const s = await be.createSession(compile(g));
  const feeds = { x: be.tensor('float32', new Float32Array(64 * 48 * 256).fill(0.3), shape) };
  for (let i = 0; i < 10; i++) { const r = await s.run(feeds); be.dispose(r.y!); }
  const t0 = performance.now(); const R = 100;
  for (let i = 0; i < R; i++) { const r = await s.run(feeds); be.dispose(r.y!); }
  console.log(kind, ((performance.now() - t0) / R).toFixed(3), 'ms/run');
}
