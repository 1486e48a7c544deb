/// <reference lib="webworker" />
// One browser backend (WASM or WebGPU): the shared measurements of bench/core.ts, as the app's
// training worker would run the engine.
import { createWebBackend, type WebBackend } from '../../src/engine/backend-web.ts';
import { readSafetensors } from '../../src/model/safetensors.ts';
import { initParams } from '../../src/model/transformer.ts';
import { BenchRunner } from '../core.ts';
import { gemmGflops } from '../gemm.ts';
import type { BenchReply, BenchRequest } from './protocol.ts';

let backend: WebBackend | null = null;
const runners = new Map<string, BenchRunner>();

async function fetchWeights(url: string): Promise<Map<string, Float32Array>> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`fetching ${url}: HTTP ${res.status}`);
  const { tensors } = readSafetensors(new Uint8Array(await res.arrayBuffer()));
  return new Map([...tensors].map(([n, t]) => [n, t.data]));
}

function runner(preset: string): BenchRunner {
  const r = runners.get(preset);
  if (!r) throw new Error(`preset ${preset} is not loaded`);
  return r;
}

async function handle(req: BenchRequest): Promise<Record<string, unknown>> {
  switch (req.cmd) {
    case 'init': {
      backend = await createWebBackend(req.kind);
      return {
        description: backend.description,
        threads: backend.threads,
        crossOriginIsolated: backend.crossOriginIsolated,
        hardwareConcurrency: navigator.hardwareConcurrency,
      };
    }
    case 'load': {
      if (!backend) throw new Error('init first');
      const weights = req.weightsUrl ? await fetchWeights(req.weightsUrl) : initParams(req.model, 1);
      const t0 = performance.now();
      runners.set(req.preset, await BenchRunner.create(backend, req.model, weights, req.config, req.fixed));
      const adapter = await backend.adapterInUse().catch(() => null);
      return { ms: performance.now() - t0, layout: runner(req.preset).layout, adapter };
    }
    case 'sample': {
      const { completions, prompts, ...rest } = await runner(req.preset).sample(req.seed);
      return req.keep ? { ...rest, completions, prompts } : { ...rest };
    }
    case 'setBatch':
      runner(req.preset).setBatch(req.batch);
      return {};
    case 'check':
      return { ...(await runner(req.preset).checkValues()), adapter: await backend!.adapterInUse().catch(() => null) };
    case 'update': {
      const { values: _v, ...rest } = await runner(req.preset).update();
      return { ...rest };
    }
    case 'step':
      return { ...(await runner(req.preset).step()) };
    case 'gemm':
      if (!backend) throw new Error('init first');
      return { gflops: await gemmGflops(backend, req.shape, req.resident) };
    case 'dispose':
      await runners.get(req.preset)?.dispose();
      runners.delete(req.preset);
      return { liveTensors: backend?.liveTensors() ?? 0 };
  }
}

self.onmessage = (e: MessageEvent<{ id: number; req: BenchRequest }>) => {
  const { id, req } = e.data;
  handle(req).then(
    (r) =>
      (self as unknown as DedicatedWorkerGlobalScope).postMessage({
        id,
        reply: { ok: true, ...r } satisfies BenchReply,
      }),
    (err: unknown) =>
      (self as unknown as DedicatedWorkerGlobalScope).postMessage({
        id,
        reply: {
          ok: false,
          error: err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err),
        } satisfies BenchReply,
      }),
  );
};
