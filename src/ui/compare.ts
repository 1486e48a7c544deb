/**
 * Compare: two configs trained side by side in two worker instances, same seed, same checkpoint,
 * same prompts (the prompt stream depends only on the seed). B is the setup with another preset and
 * optional `key=value` overrides.
 */
import { applyAssignments, configFields, type RunConfig } from '../rl/config.ts';
import type { SessionEvent } from '../../workers/protocol.ts';
import { draftPatch } from './config-form.ts';
import { checkpointSource } from './controller.ts';
import { getState, patch, type CompareSide } from './store.ts';
import { TrainerClient } from './worker-client.ts';

type SideId = 'a' | 'b';
const clients: Partial<Record<SideId, TrainerClient>> = {};

function updateSide(id: SideId, fn: (s: CompareSide) => Partial<CompareSide>): void {
  const c = getState().compare;
  patch('compare', { [id]: { ...c[id], ...fn(c[id]) } });
}

function onEvents(id: SideId, events: SessionEvent[]): void {
  updateSide(id, (s) => {
    const metrics = [...s.metrics];
    let state = s.state;
    let step = s.step;
    let error = s.error;
    for (const e of events) {
      if (e.type === 'step') metrics.push(e.metrics);
      else if (e.type === 'status') {
        state = e.status.state;
        step = e.status.step;
      } else if (e.type === 'error') error = e.message;
    }
    return { metrics, state, step, error };
  });
  const c = getState().compare;
  if (c.running && ['done', 'paused', 'error'].includes(c.a.state) && ['done', 'paused', 'error'].includes(c.b.state)) patch('compare', { running: false });
}

/** The two config patches: A is the setup; B the setup with preset B and the overrides. */
export function comparePatches(): { a: Record<string, unknown>; b: Record<string, unknown> } {
  const s = getState();
  const a = draftPatch(s.setup.draft);
  const lines = s.compare.editsB
    .split(/[\n,]+/)
    .map((l) => l.trim())
    .filter(Boolean);
  const b = applyAssignments(draftPatch({ ...s.setup.draft, presetId: s.compare.presetB }), lines);
  return { a, b };
}

export function configDiff(a: RunConfig, b: RunConfig): [string, string, string][] {
  return configFields.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).map((k) => [k, JSON.stringify(a[k]), JSON.stringify(b[k])]);
}

export async function startCompare(): Promise<void> {
  stopCompare(true);
  const s = getState();
  let patches: ReturnType<typeof comparePatches>;
  try {
    patches = comparePatches();
  } catch (e) {
    updateSide('b', () => ({ error: (e as Error).message }));
    return;
  }
  const fresh = (label: string): CompareSide => ({ label, config: null, metrics: [], state: 'loading', step: 0, error: null });
  patch('compare', { running: true, diff: [], a: fresh(`A: ${s.setup.draft.presetId}`), b: fresh(`B: ${s.compare.presetB}`) });
  const sides: SideId[] = ['a', 'b'];
  const results = await Promise.all(
    sides.map(async (id) => {
      const c = new TrainerClient(`compare-${id}`, (ev) => onEvents(id, ev), (m) => updateSide(id, () => ({ state: 'error', error: `worker stopped: ${m}` })));
      clients[id] = c;
      try {
        const r = await c.call((api) => api.init({ config: patches[id] as Partial<RunConfig>, checkpoint: checkpointSource(), backend: s.setup.backend, stepBudget: s.compare.steps }));
        updateSide(id, () => ({ config: r.config }));
        return r.config;
      } catch (e) {
        updateSide(id, () => ({ state: 'error', error: (e as Error).message }));
        return null;
      }
    }),
  );
  const [ca, cb] = results;
  if (!ca || !cb) {
    patch('compare', { running: false });
    return;
  }
  patch('compare', { diff: configDiff(ca, cb) });
  await Promise.all(sides.map((id) => clients[id]!.call((api) => api.start())));
}

export async function pauseCompare(): Promise<void> {
  await Promise.all((['a', 'b'] as const).map((id) => clients[id]?.call((api) => api.pause()).catch(() => undefined)));
  patch('compare', { running: false });
}

/** Ends both workers (their memory is freed). */
export function stopCompare(keepMetrics = false): void {
  for (const id of ['a', 'b'] as const) {
    clients[id]?.terminate();
    delete clients[id];
  }
  patch('compare', { running: false });
  if (!keepMetrics) {
    const c = getState().compare;
    patch('compare', { a: { ...c.a, state: 'idle' }, b: { ...c.b, state: 'idle' } });
  }
}
