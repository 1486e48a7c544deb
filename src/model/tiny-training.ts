import type { Backend, DeviceTensor } from '../engine/backend.ts';
import { compile } from '../engine/compile.ts';
import { Graph } from '../engine/graph.ts';
import { defaultAdamW, flatLength } from '../engine/optimizer.ts';
import { Rng } from '../util/rng.ts';
import type { ModelConfig } from './config.ts';
import { MOMENTS, trainState } from './graphs.ts';
import { forward, initParams, paramSpecs } from './transformer.ts';

/**
 * The engine's end-to-end check, shared by Node tests and the browser harness: a tiny transformer
 * learning next-token prediction on a fixed batch with AdamW, parameters and moments kept on the
 * device between steps. Every backend must produce the same losses step by step.
 */
export const tinyTrainingModel: ModelConfig = {
  vocabSize: 24,
  contextLength: 12,
  dModel: 16,
  nLayers: 2,
  nHeads: 2,
  dFF: 32,
};
const BATCH = 4;
const LR = 3e-3;

export function buildTinyTraining(c: ModelConfig = tinyTrainingModel) {
  const g = new Graph();
  const t = c.contextLength;
  const st = trainState(g, c);
  const tokens = g.input('tokens', 'int64', [BATCH, t]);
  const positions = g.input('positions', 'int64', [BATCH, t]);
  const keyBias = g.input('key_bias', 'float32', [BATCH, t]);
  const targets = g.input('targets', 'int64', [BATCH, t, 1]);
  const logits = forward(g, c, st.p, tokens, positions, keyBias);
  const loss = g.neg(g.meanAll(g.gatherElements(g.logSoftmax(logits, -1), targets, 2)));
  st.finish(loss, defaultAdamW);
  return { graph: g, names: [...st.names, ...MOMENTS] };
}

export interface TinyTrainingResult {
  losses: number[];
  liveTensorsAfter: number;
  nodeCount: number;
}

export async function runTinyTraining(
  backend: Backend,
  steps: number,
  onStep?: (i: number, loss: number) => void,
): Promise<TinyTrainingResult> {
  const c = tinyTrainingModel;
  const { graph, names } = buildTinyTraining(c);
  const compiled = compile(graph);
  const resident = names.map((n) => 'new.' + n);
  const session = await backend.createSession(compiled, { deviceOutputs: resident, label: 'tiny-training' });

  const init = initParams(c, 1234);
  const state: Record<string, DeviceTensor> = {};
  for (const s of paramSpecs(c)) state[s.name] = backend.tensor('float32', init.get(s.name)!, s.shape);
  const total = flatLength(paramSpecs(c).map((s) => s.shape));
  for (const n of MOMENTS) state[n] = backend.tensor('float32', new Float32Array(total), [total]);
  // A fixed batch of short "sentences" with padding at the end of two rows.
  const rng = new Rng(99);
  const t = c.contextLength;
  const toks: number[] = [];
  const tgts: number[] = [];
  const bias: number[] = [];
  for (let b = 0; b < BATCH; b++) {
    const len = b % 2 === 0 ? t : t - 3;
    const seq = Array.from({ length: t + 1 }, (_, i) =>
      i <= len ? 2 + ((b * 3 + i * rng.int(1, 2)) % (c.vocabSize - 2)) : 0,
    );
    for (let i = 0; i < t; i++) {
      toks.push(seq[i]!);
      tgts.push(seq[i + 1]!);
      bias.push(i < len ? 0 : -1e9);
    }
  }
  const batch = {
    tokens: backend.tensor('int64', toks, [BATCH, t]),
    positions: backend.tensor(
      'int64',
      Array.from({ length: BATCH * t }, (_, i) => i % t),
      [BATCH, t],
    ),
    key_bias: backend.tensor('float32', bias, [BATCH, t]),
    targets: backend.tensor('int64', tgts, [BATCH, t, 1]),
    lr: backend.tensor('float32', [LR], []),
  };
  const losses: number[] = [];
  for (let i = 0; i < steps; i++) {
    const stepT = backend.tensor('float32', [i + 1], []);
    const out = await session.run({ ...state, ...batch, step: stepT });
    const loss = (await backend.read(out['loss']!))[0] as number;
    losses.push(loss);
    onStep?.(i, loss);
    for (const key of Object.keys(state)) {
      backend.dispose(state[key]!);
      state[key] = out['new.' + key]!;
    }
    for (const [k, tns] of Object.entries(out)) if (!k.startsWith('new.')) backend.dispose(tns);
  }
  for (const tns of Object.values(state)) backend.dispose(tns);
  await session.release();
  return { losses, liveTensorsAfter: backend.liveTensors(), nodeCount: compiled.nodeCount };
}
