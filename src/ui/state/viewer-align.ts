/**
 * "Aligned on shared prompts" (components/viewer/AlignedRuns.tsx): the open run's step beside the nearest
 * step of the run it is compared with (`compareWith`), or beside the live run's step in its inspector,
 * on the prompts both sampled (src/runs/align.ts). Only plain data goes to the store.
 */
import { session } from './session.ts';
import { alignSteps, recordedStep, stepToAlign } from '../../runs/align.ts';
import type { RunStep } from '../../runs/types.ts';
import { getState, setState, useApp } from './store.ts';
import { runByKey } from './viewer-actions.ts';
import { runHandle } from './viewer-handles.ts';
import type { ViewerAligned, ViewerRun, ViewerState } from './viewer-state.ts';

const viewer = () => getState().viewer;
const set = (v: Partial<ViewerState>) => setState((s) => ({ viewer: { ...s.viewer, ...v } }));
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The run once it is no longer being opened (ticking "compare" starts opening a served run: compareWith). */
function settled(key: string): Promise<ViewerRun | null> {
  return new Promise((ok) => {
    const check = () => {
      const run = runByKey(key);
      if (run?.loading) return false;
      ok(run);
      return true;
    };
    if (check()) return;
    const stop = useApp.subscribe(() => check() && stop());
  });
}

/** The other side's step for the open step, or why there is none. */
async function otherStep(withWhat: ViewerAligned['with'], step: number): Promise<{ name: string; step: RunStep }> {
  if (withWhat === 'live') {
    const data = getState().inspector.data;
    if (!data) throw new Error('the live run has no step in its inspector yet: train, then pick a step there');
    return { name: `the live run`, step: recordedStep(data.step, data.records) };
  }
  const key = viewer().compareWith;
  const other = key ? await settled(key) : null;
  if (!other) throw new Error('tick "compare with the open run" beside another run first');
  const handle = runHandle(other.key);
  if (!handle) throw new Error(`${other.name} is not open yet${other.error ? `: ${other.error}` : ''}`);
  const near = stepToAlign(handle.index.steps, step);
  if (near === null) throw new Error(`${other.name} has no step with rollouts`);
  return { name: other.name, step: await handle.readStep(near) };
}

/** Aligns the open step with the other side's nearest step; a later call (another step) wins. */
export async function showAligned(withWhat: ViewerAligned['with']): Promise<void> {
  // Each alignment asked for takes a ticket; only the latest one's answer is shown (a step switch asks again).
  const mine = ++session.alignTicket;
  const { stepData } = viewer();
  const name = withWhat === 'live' ? 'the live run' : (runByKey(viewer().compareWith)?.name ?? '');
  const shown: ViewerAligned = { with: withWhat, otherName: name, loading: true, error: null, data: null };
  set({ aligned: shown });
  const done = (v: Partial<ViewerAligned>) => {
    if (mine === session.alignTicket && viewer().aligned !== null) set({ aligned: { ...shown, ...v, loading: false } });
  };
  if (!stepData) return done({ error: 'open a step of the run first' });
  try {
    const other = await otherStep(withWhat, stepData.step);
    done({ otherName: other.name, data: alignSteps(stepData, other.step) });
  } catch (e) {
    done({ error: `Aligning with ${name} failed: ${message(e)}` });
  }
}

export function closeAligned(): void {
  session.alignTicket++;
  set({ aligned: null });
}
