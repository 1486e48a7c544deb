/**
 * Where a Llama preset's time goes per session run, with the frozen base fed or baked in (src/model/resident.ts):
 * onnxruntime-web's WASM EP in Node (the browser's .wasm, headless) or onnxruntime-node, the SmolLM2-135M preset's
 * batch (bench/llama-preset.ts), each `Session.run` timed by its session's kind. docs/measured.md quotes it.
 *   npx tsx bench/resident-profile.ts LAYERS [wasm|node] [KINDS;KINDS...] [SESSION_OPTIONS_JSON] [THREADS]
 * e.g. `npx tsx bench/resident-profile.ts 30 wasm 'none;decode' '{"enableMemPattern":false}' 2`. Each KINDS
 * (comma-separated Policy.residentKinds, or none) is one policy after the other in this process: memory is shared,
 * so run one KINDS per process to compare peak memory.
 */
import * as ortWeb from 'onnxruntime-web';
import { OrtBackend, type OrtModule, type Session } from '../src/engine/backend.ts';
import { createNodeBackend } from '../src/engine/backend-node.ts';
import { initParams } from '../src/model/transformer.ts';
import { BenchRunner } from './core.ts';
import { LLAMA_SHAPE, llamaPresetModel, llamaRows, llamaRunConfig, llamaUpdateBatch } from './llama-preset.ts';

const [layers = '2', kind = 'wasm', kindsArg = 'none;decode', knobsArg = '{}', threadsArg = '2'] =
  process.argv.slice(2);
const residents = kindsArg.split(';').map((s) => (s === 'none' ? [] : s.split(',')));
const knobs = JSON.parse(knobsArg) as Record<string, unknown>;
const threads = Number(threadsArg);
ortWeb.env.wasm.numThreads = threads;
const model = llamaPresetModel('smollm2-135m', Number(layers));
const config = llamaRunConfig(model);
const rows = llamaRows(model);
const layout = { promptLen: LLAMA_SHAPE.promptLen, completionLen: LLAMA_SHAPE.completionLen };
const weights = initParams(model, 1);
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] ?? Number.NaN;

for (const resident of residents) {
  const backend =
    kind === 'wasm'
      ? new OrtBackend(ortWeb as unknown as OrtModule, 'wasm', 'WASM in Node', 'profile', {
          executionProviders: ['wasm'],
          graphOptimizationLevel: 'all',
          ...knobs,
        })
      : createNodeBackend(threads);
  const times: Record<string, number[]> = {};
  const create = backend.createSession.bind(backend);
  backend.createSession = async (g, o): Promise<Session> => {
    const s = await create(g, o);
    const k = (o?.label ?? '?').split(':')[0]!;
    return {
      graph: s.graph,
      async run(feeds) {
        const t = performance.now();
        const r = await s.run(feeds);
        (times[k] ??= []).push(performance.now() - t);
        return r;
      },
      release: () => s.release(),
    };
  };
  const t0 = performance.now();
  const runner = await BenchRunner.create(backend, model, weights, config, { rows, layout, resident });
  const s0 = await runner.sample(1);
  const first = performance.now() - t0;
  runner.setBatch(llamaUpdateBatch(layout, config, s0.prompts, s0.completions, LLAMA_SHAPE.generations));
  const check = await runner.checkValues();
  for (const k of Object.keys(times)) times[k] = [];
  const sampling: number[] = [];
  const update: number[] = [];
  for (let r = 0; r < 3; r++) {
    sampling.push((await runner.sample(1)).ms);
    update.push((await runner.update()).ms);
  }
  const ms = (a: number[]) => a.map((x) => x.toFixed(0)).join(', ');
  const runs = Object.entries(times).map(([k, v]) => `${k} ${v.length} runs, median ${med(v).toFixed(1)} ms`);
  console.log(
    `${kind}, ${layers} layers, ${threads} threads, options ${JSON.stringify(knobs)}, baked ` +
      `${resident.join(',') || 'none'}: first sampling ${first.toFixed(0)} ms; sampling ${ms(sampling)} ms; update ` +
      `${ms(update)} ms; RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB; loss ${check.loss}; ` +
      runs.join('; '),
  );
  await runner.dispose();
}
process.exit(0);
