/**
 * Compare: two configs trained side by side in two worker instances, same seed, same checkpoint,
 * same prompts (the prompt stream depends only on the seed). B is the setup with another preset and
 * optional `key=value` overrides. A lesson with three configs adds a third run, C (runCompare); a
 * recorded run shown beside the live ones takes C too (state 'recorded', recording.ts), and stays there
 * while A and B run.
 */
import { configFields, heldOutSamples, validateConfig, type RunConfig } from '../../rl/config.ts';
import type { SessionEvent } from '../../../workers/protocol.ts';
import { runsProgress } from '../derive/job-progress.ts';
import { foldRunEvents } from '../derive/run-series.ts';
import { appDefaults, draftPatch } from '../derive/config-form.ts';
import { checkOverrides, passAt1Verdict, type HeldOut } from '../derive/compare-check.ts';
import { useDataset } from './dataset-import.ts';
import { checkpointSource, selectedManifest } from './setup-state.ts';
import { forBackend, recordPace } from './pace.ts';
import { aboutTime, secondsLeft, trainingSeconds, UNKNOWN_TIME } from '../derive/time-estimate.ts';
import { resolveOrThrow } from '../../rl/resolve-config.ts';
import { getState, patch, type CompareSide, type CompareSideState, type SideId } from './store.ts';
import { session } from './session.ts';
import { TrainerClient } from './worker-client.ts';

const SIDES: SideId[] = ['a', 'b', 'c'];
// Each side's worker has one handle (a TrainerClient, worker-handle.ts) in session.compareClients: it owns the
// worker's lifetime and its pause request. stopCompare disposes of them, and the answers and events of a
// disposed handle are dropped.

function updateSide(id: SideId, fn: (s: CompareSide) => Partial<CompareSide>): void {
  const cur = getState().compare[id];
  if (!cur) return;
  patch('compare', { [id]: { ...cur, ...fn(cur) } });
}

export { difficultyMetrics } from '../derive/run-series.ts';

const finished = (state: CompareSideState): boolean => state === 'done' || state === 'paused' || state === 'error';

/** The sides in use: A and B, and C when a run was started for it. */
export function compareSides(c = getState().compare): CompareSide[] {
  return c.c ? [c.a, c.b, c.c] : [c.a, c.b];
}

/**
 * One batch of a side's events (foldRunEvents) from its worker's handle: the store is touched only when something
 * it shows changed. A side whose Pause was pressed (handle.pauseAsked) reads "pausing" until its worker stopped.
 */
function onEvents(id: SideId, handle: TrainerClient, events: SessionEvent[]): void {
  const s = getState().compare[id];
  if (!s) return;
  // A side shows its errors itself (next.error): the effects are the live run's (controller.ts).
  const { next, pauseAsked } = foldRunEvents(s, events, { slot: 'side', pauseAsked: handle.pauseAsked });
  handle.pauseAsked = pauseAsked;
  if (Object.keys(next).length) updateSide(id, () => next);
  if (next.metrics) {
    const side = getState().compare[id];
    if (side) recordPace(side.metrics, side.config, side.parameters, side.backend, compareSides().length);
  }
  const c = getState().compare;
  if (c.running && compareSides(c).every((x) => finished(x.state) || x.state === 'recorded'))
    patch('compare', { running: false });
}

/** B's overrides over the setup with preset B, every error at once (what the panel shows as they are typed). */
export function checkB(s = getState()) {
  return checkOverrides(draftPatch({ ...s.setup.draft, presetId: s.compare.presetB }), s.compare.editsB);
}

/**
 * The two config patches: A is the setup; B the setup with preset B and the overrides. Throws listing every error in B.
 */
export function comparePatches(): { a: Record<string, unknown>; b: Record<string, unknown> } {
  const s = getState();
  const a = draftPatch(s.setup.draft);
  const b = checkB(s);
  if (!b.patch) throw new Error(`B's overrides: ${b.errors.join('; ')}`);
  return { a, b: b.patch };
}

/** Held-out pass@1 of a side: its on-demand measurement, else its latest periodic evaluation after step 0. */
export function heldOutOf(side: CompareSide): HeldOut | null {
  const c = side.config;
  const last = side.evals
    .filter((e) => e.step > 0 && e.pass_at_k['1'] !== undefined)
    .sort((x, y) => y.step - x.step)[0];
  const fromEval =
    c && last
      ? {
          label: side.label.split(':')[0]!,
          passAt1: last.pass_at_k['1']!,
          prompts: c.eval_prompts,
          n: heldOutSamples(c),
          step: last.step,
        }
      : null;
  const h = side.heldOut;
  if (h && (!fromEval || h.step >= fromEval.step)) return { label: side.label.split(':')[0]!, ...h };
  return fromEval;
}

/** The one-line verdict on A vs B (null until both have a held-out pass@1 after training). */
export function compareVerdict(c = getState().compare): ReturnType<typeof passAt1Verdict> | null {
  const a = heldOutOf(c.a);
  const b = heldOutOf(c.b);
  return a && b ? passAt1Verdict(a, b) : null;
}

/** Samples per prompt of the on-demand evaluation (pass@1 only needs a mean; 16 keeps it to seconds). */
const ON_DEMAND_N = 16;

/** Measures held-out pass@1 of A and B now (training paused first; both on the same held-out prompts). */
export async function evaluateBoth(): Promise<void> {
  const ids: SideId[] = ['a', 'b'];
  patch('compare', { evaluating: true });
  try {
    await Promise.all(
      ids.map(async (id) => {
        const c = session.compareClients[id];
        if (!c || c.dead) return;
        try {
          await c.call((api) => api.pause());
          const curve = await c.call((api) => api.evaluatePassAtK({ n: ON_DEMAND_N }));
          updateSide(id, () => ({
            heldOut: { passAt1: curve.current['1'] ?? 0, prompts: curve.prompts, n: curve.n, step: curve.step },
          }));
        } catch (e) {
          updateSide(id, () => ({ error: `held-out evaluation failed: ${(e as Error).message}` }));
        }
      }),
    );
  } finally {
    patch('compare', { evaluating: false, running: false });
  }
}

/** Rows [field, value in the first config, in the second, ...] for every field where the configs differ. */
export function configDiffAll(configs: RunConfig[]): string[][] {
  const first = configs[0];
  if (!first) return [];
  return configFields
    .filter((k) => configs.some((c) => JSON.stringify(c[k]) !== JSON.stringify(first[k])))
    .map((k) => [k, ...configs.map((c) => JSON.stringify(c[k]))]);
}

export function configDiff(a: RunConfig, b: RunConfig): [string, string, string][] {
  return configDiffAll([a, b]) as [string, string, string][];
}

export interface CompareRun {
  label: string;
  /** Config patch over the defaults (validated by the worker). */
  patch: Record<string, unknown>;
}

/**
 * Trains two or three configs side by side (A, B, C), each in its own worker, from the setup's
 * checkpoint, with the same step budget; any runs beyond three are not started.
 */
export async function runCompare(runs: CompareRun[], steps = getState().compare.steps): Promise<void> {
  stopCompare(true);
  const s = getState();
  const ids = SIDES.slice(0, Math.min(runs.length, SIDES.length));
  // Every config is checked before any worker loads: an invalid one starts nothing.
  const invalid = ids.map((_, i) => {
    try {
      validateConfig(runs[i]!.patch);
      return null;
    } catch (e) {
      return (e as Error).message;
    }
  });
  const fresh = (label: string): CompareSide => ({
    label,
    config: null,
    metrics: [],
    evals: [],
    state: 'loading',
    step: 0,
    error: null,
  });
  const recorded = s.compare.c?.state === 'recorded' ? s.compare.c : null;
  patch('compare', {
    running: true,
    diff: [],
    overSeeds: null,
    a: fresh(runs[0]?.label ?? 'A'),
    b: fresh(runs[1]?.label ?? 'B'),
    c: runs[2] ? fresh(runs[2].label) : recorded,
  });
  if (ids.length < 2) {
    patch('compare', {
      running: false,
      b: { ...getState().compare.b, state: 'error', error: 'Compare needs two configs' },
    });
    return;
  }
  if (invalid.some(Boolean)) {
    ids.forEach((id, i) =>
      updateSide(id, () => ({
        state: invalid[i] ? 'error' : 'idle',
        error: invalid[i] ? `not started: ${invalid[i]}` : null,
      })),
    );
    patch('compare', { running: false });
    return;
  }
  // The runs share the cores: each worker's thread pool gets its part, not all of them.
  const threads = Math.max(1, Math.floor(Math.min(4, navigator.hardwareConcurrency || 1) / ids.length));
  const handles: TrainerClient[] = [];
  const results = await Promise.all(
    ids.map(async (id, i) => {
      const c: TrainerClient = new TrainerClient(
        `compare-${id}`,
        (ev) => !c.disposed && onEvents(id, c, ev),
        (m) => !c.disposed && updateSide(id, () => ({ state: 'error', error: `worker stopped: ${m}` })),
      );
      session.compareClients[id] = c;
      handles.push(c);
      try {
        const dataset = runs[i]!.patch.task === 'custom' ? useDataset.getState().payload : null;
        const r = await c.call((api) =>
          api.init({
            config: runs[i]!.patch as Partial<RunConfig>,
            appDefaults,
            checkpoint: checkpointSource(),
            backend: s.setup.backend,
            stepBudget: steps,
            threads,
            ...(dataset ? { dataset } : {}),
          }),
        );
        if (!c.disposed)
          updateSide(id, () => ({ config: r.config, parameters: r.model.parameters, backend: r.backend.kind }));
        return r.config;
      } catch (e) {
        if (!c.disposed) updateSide(id, () => ({ state: 'error', error: (e as Error).message }));
        return null;
      }
    }),
  );
  if (handles.some((h) => h.disposed)) return; // stopped or replaced meanwhile
  if (results.some((r) => !r)) {
    patch('compare', { running: false });
    return;
  }
  const third = getState().compare.c;
  patch('compare', {
    diff: configDiffAll([
      ...(results as RunConfig[]),
      ...(third?.state === 'recorded' && third.config ? [third.config] : []),
    ]),
  });
  await Promise.all(
    ids.map((id) =>
      session.compareClients[id]
        ?.call((api) => api.start())
        .catch((e: unknown) => updateSide(id, () => ({ state: 'error', error: (e as Error).message }))),
    ),
  );
}

export async function startCompare(): Promise<void> {
  const s = getState();
  let patches: ReturnType<typeof comparePatches>;
  try {
    patches = comparePatches();
  } catch (e) {
    stopCompare(true);
    updateSide('b', () => ({ error: (e as Error).message }));
    return;
  }
  await runCompare(
    [
      { label: `A: ${s.setup.draft.presetId}`, patch: patches.a },
      { label: `B: ${s.compare.presetB}`, patch: patches.b },
    ],
    s.compare.steps,
  );
}

export async function pauseCompare(): Promise<void> {
  // Shown at once: a worker answers only between engine operations, and its run stops after the current step.
  for (const id of SIDES) {
    const handle = session.compareClients[id];
    if (handle && getState().compare[id]?.state === 'running') {
      handle.pauseAsked = true;
      updateSide(id, () => ({ state: 'pausing' }));
    }
  }
  await Promise.all(SIDES.map((id) => session.compareClients[id]?.pause().catch(() => undefined)));
  patch('compare', { running: false });
}

/** Disposes of the sides' handles: their workers end (their memory is freed), their late answers are dropped. */
export function stopCompare(keepMetrics = false): void {
  for (const id of SIDES) {
    session.compareClients[id]?.dispose();
    delete session.compareClients[id];
  }
  patch('compare', { running: false });
  if (!keepMetrics) {
    const c = getState().compare;
    patch('compare', {
      a: { ...c.a, state: 'idle' },
      b: { ...c.b, state: 'idle' },
      c: c.c ? { ...c.c, state: c.c.state === 'recorded' ? 'recorded' : 'idle' } : null,
    });
  }
}

/** Compare's one progress line while its runs train (job-progress.ts); null when nothing trains. */
export function compareProgress(c = getState().compare): { fraction: number; doing: string } | null {
  if (!c.running) return null;
  return runsProgress(
    compareSides(c).map((x, i) => ({ name: 'ABC'[i]!, step: x.step, trains: x.state !== 'recorded' })),
    c.steps,
  );
}

/** Compare's two runs: before "Run both", and the slowest run's time left while they train. */
export function compareEstimate(s = getState()): string | null {
  const c = s.compare;
  const sides = c.c ? [c.a, c.b, c.c] : [c.a, c.b];
  if (c.running && sides.every((x) => x.config)) {
    const left = secondsLeft(
      sides.map((x) => ({ step: x.step, budget: c.steps, stepsPerMinute: x.stepsPerMinute ?? 0 })),
    );
    if (left !== null) return `${aboutTime(left)} left on this device (measured from their steps)`;
    const pace = forBackend(s);
    if (pace && sides.every((x) => x.parameters))
      return `${aboutTime(
        trainingSeconds(
          pace,
          sides.map((x) => ({ config: x.config!, parameters: x.parameters!, steps: Math.max(0, c.steps - x.step) })),
        ),
      )} left on this device`;
    return UNKNOWN_TIME;
  }
  const pace = forBackend(s);
  const manifest = selectedManifest(s);
  if (!pace || !manifest) return `${c.steps} steps each: ${UNKNOWN_TIME}`;
  try {
    const { a, b } = comparePatches();
    const runs = [a, b].map((p) => ({
      config: resolveOrThrow({ manifest, appDefaults, layers: [{ source: { kind: 'edited' }, values: p }] }),
      parameters: manifest.parameters,
      steps: c.steps,
    }));
    // Run both starts two fresh workers: each loads its model and compiles before its first step.
    return `${c.steps} steps each: ${aboutTime(trainingSeconds(pace, runs, true))} on this device`;
  } catch {
    return null;
  }
}
