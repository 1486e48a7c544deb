/**
 * "Continue training from here": a new main run from the weights a recording kept at the scrubbed
 * step (`rlvr train --record-checkpoints`, Keep & share's record with weights), with the recording's
 * config in the setup. The record keeps weights, not the AdamW moments or the trainer's counters, so
 * the new run starts its own step count and optimizer from those weights. It replaces the current
 * main run, so a run that exists is replaced only when the person confirms.
 */
import { parseConfigFile } from '../derive/config-file.ts';
import { start } from './controller.ts';
import { reset } from './run-load.ts';
import { showError } from './errors.ts';
import { showLive } from './recording.ts';
import { updateSetup } from './setup-state.ts';
import { getState, setState } from './store.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The weights recorded at the scrubbed step, if any. */
export function recordedCheckpointHere() {
  const rec = getState().recording;
  return rec?.record.checkpoints.find((c) => c.step === rec.series.step) ?? null;
}

export async function continueFromRecording(
  confirm: (text: string) => boolean = (t) => window.confirm(t),
): Promise<boolean> {
  const rec = getState().recording;
  const ck = recordedCheckpointHere();
  if (!rec || !ck) return false;
  let draft;
  try {
    draft = parseConfigFile(JSON.stringify(rec.record.config), rec.name);
  } catch (e) {
    showError('other', 'Could not continue from the recording', `${message(e)}. Nothing was changed.`);
    return false;
  }
  const run = getState().run;
  const live = run.state !== 'idle';
  if (
    live &&
    !confirm(
      `Continue training from the recording's step ${ck.step}` +
        `? This replaces your current run (step ${run.step}` +
        ') and, at its first autosave, the autosaved run. ' +
        'Download a checkpoint first to keep it.',
    )
  )
    return false;
  if (live) await reset();
  setState({ uploaded: { name: ck.manifest.name, manifest: ck.manifest, bytes: ck.safetensors.slice() } });
  updateSetup((s) => ({ ...s, draft, checkpoint: 'upload', model: null, lesson: null }));
  showLive();
  setState({ view: 'charts' });
  await start();
  return true;
}
