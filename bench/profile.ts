/** `rlvr bench --profile`: where onnxruntime-node spends its time, per op, from ORT's own profiler. */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { OrtBackend, type OrtModule } from '../src/engine/backend.ts';
import { nodeSessionOptions } from '../src/engine/backend-node.ts';
import type { RunConfig } from '../src/rl/config.ts';
import type { UpdateBatch } from './batches.ts';
import { BenchRunner } from './core.ts';
import { WORK, type PresetSetup } from './presets.ts';

export interface ProfileSummary {
  what: string;
  ort_runs_per_call: number;
  wall_ms_per_call: number;
  ort_run_ms_per_call: number;
  kernel_ms_per_call: number;
  ort_overhead_ms_per_call: number;
  outside_ort_ms_per_call: number;
  top_ops: { op: string; ms_per_call: number; share: number }[];
  top_nodes: { node: string; op: string; inputs: string; ms_per_call: number; share: number }[];
}

/** Runs ORT with enableProfiling on a separate policy and aggregates the `cat:"Node"` kernel events by op. */
export async function profileNode(
  setup: PresetSetup,
  config: RunConfig,
  threads: number,
  batch: UpdateBatch,
  log: (s: string) => void,
): Promise<ProfileSummary[]> {
  const dir = join(WORK, 'profile');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const out: ProfileSummary[] = [];
  for (const what of ['sampling', 'update'] as const) {
    const prefix = join(dir, `${setup.id}-${what}`);
    const backend = new OrtBackend(
      ort as unknown as OrtModule,
      'node',
      'onnxruntime-node CPU (profiling)',
      'bench --profile',
      {
        ...nodeSessionOptions(threads),
        enableProfiling: true,
        profileFilePrefix: prefix,
      },
    );
    const r = await BenchRunner.create(backend, setup.model, setup.weights, config);
    const calls = 3;
    let wall = 0;
    if (what === 'sampling') {
      await r.sample(1);
      for (let i = 0; i < calls; i++) wall += (await r.sample(1)).ms;
    } else {
      r.setBatch(batch);
      await r.update();
      for (let i = 0; i < calls; i++) wall += (await r.update()).ms;
    }
    await r.dispose(); // releasing a session writes its profile
    await new Promise((ok) => setTimeout(ok, 300));
    const files = readdirSync(dir).filter((f) => f.startsWith(`${setup.id}-${what}`) && f.endsWith('.json'));
    if (!files.length) {
      log(`profile: ORT wrote no profile for ${setup.id} ${what}`);
      continue;
    }
    type Ev = {
      cat?: string;
      name?: string;
      ts?: number;
      dur?: number;
      args?: { op_name?: string; input_type_shape?: Record<string, number[]>[] };
    };
    const events = files.flatMap((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Ev[]);
    // Leave out the warm-up call: everything up to the end of its last ORT run.
    const allRuns = events.filter((e) => e.name === 'model_run').sort((x, y) => (x.ts ?? 0) - (y.ts ?? 0));
    const perRunCall = Math.max(1, Math.round(allRuns.length / (calls + 1)));
    const cut = (allRuns[perRunCall - 1]?.ts ?? 0) + (allRuns[perRunCall - 1]?.dur ?? 0);
    const timed = events.filter((e) => (e.ts ?? 0) > cut);
    const runs = timed.filter((e) => e.name === 'model_run').map((e) => e.dur ?? 0);
    const perCall = (us: number) => us / 1000 / calls;
    const byOp = new Map<string, number>();
    const byNode = new Map<string, { us: number; op: string; shapes: string }>();
    let kernels = 0;
    for (const e of timed) {
      if (e.cat !== 'Node' || !e.name?.endsWith('_kernel_time')) continue;
      const op = e.args?.op_name ?? '?';
      byOp.set(op, (byOp.get(op) ?? 0) + (e.dur ?? 0));
      const shapes = (e.args?.input_type_shape ?? [])
        .map((x) => `[${Object.values(x)[0]?.join(',') ?? ''}]`)
        .join(' x ');
      const n = byNode.get(e.name) ?? { us: 0, op, shapes };
      n.us += e.dur ?? 0;
      byNode.set(e.name, n);
      kernels += e.dur ?? 0;
    }
    const ortRun = runs.reduce((a, b) => a + b, 0);
    const wallPerCall = wall / calls;
    out.push({
      what: `${setup.id} ${what}, ${threads} thread${threads === 1 ? '' : 's'}`,
      ort_runs_per_call: Math.round(runs.length / calls),
      wall_ms_per_call: wallPerCall,
      ort_run_ms_per_call: perCall(ortRun),
      kernel_ms_per_call: perCall(kernels),
      ort_overhead_ms_per_call: perCall(ortRun - kernels),
      outside_ort_ms_per_call: wallPerCall - perCall(ortRun),
      top_ops: [...byOp]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([op, us]) => ({ op, ms_per_call: perCall(us), share: us / kernels })),
      top_nodes: [...byNode]
        .sort((a, b) => b[1].us - a[1].us)
        .slice(0, 12)
        .map(([name, n]) => ({
          node: name.replace(/_kernel_time$/, ''),
          op: n.op,
          inputs: n.shapes,
          ms_per_call: perCall(n.us),
          share: n.us / kernels,
        })),
    });
  }
  return out;
}
