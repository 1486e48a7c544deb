// The device bench page: the SmolLM2-135M preset (bench/llama-preset.ts: its shape, random weights, LoRA
// r = 8) on the WebGPU and WASM EPs, each in its own module worker as the app's training worker runs the
// engine, driving itself from its URL. It is for a machine with a GPU and a browser but no Node
// (bench/browser/device_bench.py serves it, starts Chromium and keeps what it POSTs):
//   ?probe=1                   only describe the WebGPU adapter, then POST it to /__result
//   ?rows=4,64&reps=5,3        for each row count (groups of 2, then 8 completions), the timed rounds
//   &kinds=wasm,webgpu         the engines, in this order (the first one's batch is the others' too)
//   &model=dry                 a 2-layer Llama instead (DRY_LLAMA: a quick check of the page itself)
// Progress goes to /__log, each phase's name to /__phase (the server samples memory under it), each
// engine's figures to /__partial as soon as they are measured, and everything to /__result at the end.
import { probeWebGpu } from '../../src/engine/webgpu-adapter.ts';
import type { UpdateBatch } from '../batches.ts';
import {
  DRY_LLAMA,
  type LlamaShape,
  llamaPresetModel,
  llamaRows,
  llamaRunConfig,
  llamaUpdateBatch,
} from '../llama-preset.ts';
import type { BenchReply, BenchRequest } from './protocol.ts';

type Kind = 'wasm' | 'webgpu';

const logEl = document.getElementById('log')!;
const params = new URLSearchParams(location.search);

async function post(path: string, body: unknown): Promise<void> {
  await fetch(path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
}

async function log(line: string): Promise<void> {
  logEl.textContent += `${line}\n`;
  await post('/__log', line);
}

/** One module worker per engine (bench.worker.ts), as bench.ts has them. */
class Engine {
  private readonly worker: Worker;
  private readonly pending = new Map<number, (r: BenchReply) => void>();
  private nextId = 0;
  constructor(readonly kind: Kind) {
    this.worker = new Worker(new URL('./bench.worker.ts', import.meta.url), { type: 'module', name: `bench-${kind}` });
    this.worker.onmessage = (e: MessageEvent<{ id: number; reply: BenchReply }>) => {
      this.pending.get(e.data.id)?.(e.data.reply);
      this.pending.delete(e.data.id);
    };
    this.worker.onerror = (e) => {
      for (const [id, done] of this.pending) {
        done({ ok: false, error: `${kind} worker error: ${e.message}` });
        this.pending.delete(id);
      }
    };
  }
  async call(req: BenchRequest): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const reply = await new Promise<BenchReply>((ok) => {
      this.pending.set(id, ok);
      this.worker.postMessage({ id, req });
    });
    if (!reply.ok) throw new Error(`${this.kind} ${req.cmd}: ${reply.error}`);
    return reply;
  }
}

/** The shape of `rows` rows: groups of 2 up to 4 rows (the CPU bench's batch), else groups of 8. */
function shapeOf(rows: number): LlamaShape {
  const generations = rows <= 4 ? 2 : 8;
  return { prompts: rows / generations, generations, promptLen: 16, completionLen: 16 };
}

const list = (name: string, fallback: string) => (params.get(name) ?? fallback).split(',').filter(Boolean);

async function measure(rows: number, reps: number, kinds: Kind[], engines: Map<Kind, Engine>) {
  const preset = `smollm2-135m-${rows}`;
  const shape = shapeOf(rows);
  const model = params.get('model') === 'dry' ? DRY_LLAMA : llamaPresetModel('smollm2-135m');
  const config = llamaRunConfig(model, shape);
  const fixed = {
    rows: llamaRows(model, shape),
    layout: { promptLen: shape.promptLen, completionLen: shape.completionLen },
  };
  let batch: UpdateBatch | null = null;
  let refLogp: number[] | null = null;
  const out: Record<string, unknown> = { rows, shape, engines: {} as Record<string, unknown> };
  for (const kind of kinds) {
    const e = engines.get(kind)!;
    await post('/__phase', `${kind}-${rows}-load`);
    const t0 = performance.now();
    const load = await e.call({ cmd: 'load', preset, model, config, fixed });
    const first = await e.call({ cmd: 'sample', preset, seed: 1, keep: true });
    batch ??= llamaUpdateBatch(
      fixed.layout,
      config,
      first.prompts as number[][],
      first.completions as { tokens: number[]; logp: number[] }[],
      shape.generations,
    );
    await e.call({ cmd: 'setBatch', preset, batch });
    const check = await e.call({ cmd: 'check', preset });
    const logp = check.logp as number[];
    let d = 0;
    if (refLogp)
      for (let i = 0; i < batch.mask.length; i++) if (batch.mask[i]) d = Math.max(d, Math.abs(logp[i]! - refLogp[i]!));
    refLogp ??= logp;
    const warm = performance.now() - t0;
    await log(
      `${kind} ${rows} rows: loaded, first sampling and check in ${(warm / 1000).toFixed(1)} s` +
        (kinds[0] === kind ? '' : `; max |Δ logp| vs ${kinds[0]} ${d.toExponential(2)}`),
    );
    const sampling: { s: number; tokens: number }[] = [];
    const update: { s: number; tokens: number }[] = [];
    for (let r = 0; r < reps; r++) {
      await post('/__phase', `${kind}-${rows}-sampling`);
      const s = await e.call({ cmd: 'sample', preset, seed: 1 });
      sampling.push({ s: (s.ms as number) / 1000, tokens: (s.rows as number) * (s.genSteps as number) });
      await post('/__phase', `${kind}-${rows}-update`);
      const u = await e.call({ cmd: 'update', preset });
      update.push({ s: (u.ms as number) / 1000, tokens: u.tokens as number });
      const [sl, ul] = [sampling.at(-1)!, update.at(-1)!];
      const rate = (sl.tokens / sl.s).toFixed(1);
      const round = `${kind} ${rows} rows, round ${r + 1}`;
      await log(`${round}: sampling ${sl.s.toFixed(3)} s (${rate} tokens/s), update ${ul.s.toFixed(3)} s`);
    }
    await post('/__phase', 'idle');
    const disposed = await e.call({ cmd: 'dispose', preset });
    (out.engines as Record<string, unknown>)[kind] = {
      load_ms: load.ms,
      warm_ms: warm,
      adapter: load.adapter ?? null,
      max_abs_logp_diff_vs_first: kinds[0] === kind ? null : d,
      loss: check.loss,
      grad_norm: check.gradNorm,
      sampling,
      update,
      live_tensors_after_dispose: disposed.liveTensors,
    };
    out.update_tokens = batch.tokens_counted;
    // What is measured so far, in case the server's time runs out before the end.
    await post('/__partial', { rows: out });
  }
  return out;
}

async function main(): Promise<void> {
  const probe = await probeWebGpu();
  const env = {
    userAgent: navigator.userAgent,
    hardwareConcurrency: navigator.hardwareConcurrency,
    crossOriginIsolated,
  };
  await log(`adapter: ${JSON.stringify(probe)}; ${JSON.stringify(env)}`);
  if (params.get('probe')) {
    await post('/__result', { probe, env });
    return;
  }
  const kinds = list('kinds', 'wasm,webgpu') as Kind[];
  const rowList = list('rows', '4,64').map(Number);
  const repList = list('reps', '5,3').map(Number);
  const engines = new Map<Kind, Engine>();
  const info: Record<string, unknown> = {};
  for (const kind of kinds) {
    const e = new Engine(kind);
    engines.set(kind, e);
    info[kind] = await e.call({ cmd: 'init', kind });
    await log(`${kind}: ${String(info[kind] && (info[kind] as { description?: string }).description)}`);
  }
  const results = [];
  for (const [i, rows] of rowList.entries())
    results.push(await measure(rows, repList[i] ?? repList.at(-1)!, kinds, engines));
  await post('/__result', { probe, env, engines: info, results });
}

main().catch(async (e: unknown) => {
  const error = e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e);
  await log(`FAILED: ${error}`);
  await post('/__result', { error });
});
