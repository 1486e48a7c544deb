/**
 * The Findings panel's actions (components/viewer/FindingsPanel.tsx): the open run's findings over every
 * step (docs/findings.md), computed where its source computes them (the run reader's worker for a folder
 * opened in the page, `rlvr view` near the files for a served run: run-sources.ts), the kind listed, and
 * a clicked finding's step opened with its rows marked.
 */
import { findRunFindings, type Finding, type FindingKind } from '../../runs/findings/index.ts';
import { getState, setState } from './store.ts';
import { runByKey, showStep } from './viewer-actions.ts';
import { cancelJob, endJob, runHandle, startJob } from './viewer-handles.ts';
import { idleFindings, type ViewerFindings, type ViewerState } from './viewer-state.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const viewer = () => getState().viewer;
const set = (v: Partial<ViewerState>) => setState((s) => ({ viewer: { ...s.viewer, ...v } }));

/** Looks for the open run's findings over every step, with progress; a run switch or cancel stops it. */
export async function runFindings(): Promise<void> {
  const run = runByKey(viewer().open);
  const handle = runHandle(run?.key);
  if (!run || !handle) return;
  cancelJob(viewer().findings.job);
  const job = startJob();
  const mine = () => viewer().findings.job === job.id;
  const update = (v: Partial<ViewerFindings>) => mine() && set({ findings: { ...viewer().findings, ...v } });
  set({ findings: { ...idleFindings, running: true, job: job.id } });
  const options = { signal: job.signal, onProgress: (progress: ViewerFindings['progress']) => update({ progress }) };
  try {
    // A source that cannot compute them elsewhere: one pass over the steps here, through the reader.
    const result = handle.findings ? await handle.findings(options) : await findRunFindings(handle, options);
    if (result.cancelled) update({ running: false });
    else update({ list: result.findings, running: false });
  } catch (e) {
    update({ error: `Looking for findings in ${run.name} failed: ${message(e)}`, running: false });
  } finally {
    endJob(job.id);
  }
}

export const cancelFindings = () => cancelJob(viewer().findings.job);

/** The kind the panel lists (null: every kind); written to the link as `finding=KIND`. */
export const setFindingKind = (kind: FindingKind | null) => set({ findingKind: kind });

/** Opens the finding's step with its rows marked. */
export async function openFinding(f: Finding): Promise<void> {
  set({ marked: { step: f.step, rows: f.rows } });
  if (viewer().step !== f.step || !viewer().stepData) await showStep(f.step);
}
