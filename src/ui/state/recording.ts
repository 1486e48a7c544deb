/**
 * Recorded runs in the page: open a run record (src/record/run-record.ts) from a file (picker or
 * drag-and-drop), from a URL (`?run=URL`, the page's own origin) or from the shipped list
 * (public/records/index.json), and show it with the live run's own views: the charts draw the
 * record's metrics, the rollout inspector and objective panel its rollouts, the pass@k view its
 * held-out evaluations, all at the step the scrubber is at.
 *
 * Opening a record never touches the live run: the record is read and decoded in a short-lived run reader
 * worker of its own (workers/run-reader.worker.ts, record-readers.ts), not the trainer worker, and lands in the store's
 * `recording` slice (the record up to the scrubbed step as `recording.series`, a RunSeries); the live run's slot
 * (`run`) and the autosave are left as they are. A bad file
 * leaves whatever was open (the live run, an earlier recording) and says what is wrong with it.
 */
import { RUN_RECORD_MAX_BYTES, type RunRecord } from '../../record/run-record.ts';
import type { StepRollouts } from '../../../workers/protocol.ts';
import { settingsOf } from '../../../workers/inspection.ts';
import { recordedSeries } from '../derive/run-series.ts';
import { getState, idleSide, patch, setState, type AppState, type CompareSide, type RecordingState } from './store.ts';
import { searchToSetup, setupToSearch } from '../derive/url-state.ts';
import { selectedManifest } from './setup-state.ts';
import { droppedFilesPlan } from '../../util/file-kind.ts';
import { droppedDirectory, folderFromEntry } from '../derive/folder-files.ts';
import { folderFailed, openFolder } from './viewer-actions.ts';
import { showsRecording } from '../derive/shown-run.ts';
import {
  decodeOffThread,
  download,
  failed,
  isLatestOpen,
  message,
  newOpen,
  recordHref,
  sizeRefusal,
} from './recording-read.ts';

async function openBytes(name: string, read: () => Promise<ArrayBuffer>, ticket: number): Promise<boolean> {
  // Marks of the opening's phases (the e2e test reports them).
  performance.mark('record-open');
  let bytes: ArrayBuffer;
  try {
    bytes = await read();
    performance.mark('record-read');
  } catch (e) {
    if (isLatestOpen(ticket)) failed(name, message(e));
    return false;
  }
  const r = await decodeOffThread(bytes);
  performance.mark('record-decoded');
  if (!isLatestOpen(ticket)) return false;
  if (!r.ok) {
    failed(name, r.error);
    return false;
  }
  showRecord(name, r.record, r.notes);
  performance.mark('record-shown');
  return true;
}

/** From the file picker or a drop. A file at or over the size limit is refused before it is read. */
export async function openRecordFile(file: File): Promise<boolean> {
  const ticket = newOpen();
  if (file.size >= RUN_RECORD_MAX_BYTES) {
    failed(file.name, sizeRefusal(file.size));
    return false;
  }
  patch('recordingLoad', { loading: file.name, error: null });
  return openBytes(file.name, () => file.arrayBuffer(), ticket);
}

/** A record at a URL (relative URLs are read against the page). */
export async function openRecordUrl(url: string, title?: string): Promise<boolean> {
  const ticket = newOpen();
  const href = recordHref(url);
  if (typeof href === 'string') {
    failed(title ?? JSON.stringify(url), href);
    return false;
  }
  const name = title ?? href.href;
  patch('recordingLoad', { loading: name, error: null });
  return openBytes(name, () => download(href), ticket);
}

/** `?run=URL`: opens that record as a recording (after boot, so the live run's restore is not raced). */
export async function openRecordingFromUrl(search = location.search): Promise<boolean> {
  const url = searchToSetup(search).page.run;
  if (url === null) return false;
  return openRecordUrl(url);
}

// ---- the shown recording ------------------------------------------------------------------------

const ascending = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b);

/** Puts a decoded record in the page (on the last step) and shows it (in `opts.view`, else a view that can show it). */
export function showRecord(
  name: string,
  record: RunRecord,
  notes: string[] = [],
  opts: { arms?: RecordingState['arms']; view?: AppState['view'] } = {},
): void {
  const steps = ascending([0, ...record.steps.map((s) => s.step), ...record.evals.map((e) => e.step)]);
  const rec: RecordingState = {
    name,
    record,
    notes,
    steps,
    rolloutSteps: ascending(record.rollouts.map((r) => r.step)),
    ...recordedSeries(record, steps[steps.length - 1] ?? 0),
    showing: true,
    ...(opts.arms ? { arms: opts.arms } : {}),
    // The live inspector is kept once, when the page turns from the live run to a recording.
    liveInspector: showsRecording(getState()) ? (getState().recording?.liveInspector ?? null) : getState().inspector,
  };
  const view = getState().view;
  setState({
    recording: rec,
    recordingLoad: { loading: null, error: null },
    view: opts.view ?? (view === 'rollouts' || view === 'passk' || view === 'charts' ? view : 'charts'),
    inspector: {
      step: null,
      data: null,
      loading: false,
      open: null,
      token: null,
      channel: getState().inspector.channel,
    },
  });
  scrubTo(rec.series.step);
}

/** A recorded step's rollouts in the inspector's shape (the settings are the record's config). */
export function recordedStepRollouts(record: RunRecord, step: number): StepRollouts | null {
  const r = record.rollouts.find((x) => x.step === step);
  return r ? { step, settings: settingsOf(record.config), records: r.records } : null;
}

/** The nearest recorded rollout step at or before `step` (else the first one). */
function rolloutStepFor(rec: RecordingState, step: number): number | null {
  let best: number | null = rec.rolloutSteps[0] ?? null;
  for (const s of rec.rolloutSteps) if (s <= step) best = s;
  return best;
}

/** Moves the scrubber: the charts draw up to `step`, the inspector shows that step's rollouts. */
export function scrubTo(step: number): void {
  const rec = getState().recording;
  if (!rec) return;
  // The nearest stop at or below the asked step (steps without metrics are skipped).
  let at = rec.steps[0] ?? 0;
  for (const s of rec.steps) if (s <= step) at = s;
  const inspectStep = rolloutStepFor(rec, at);
  const insp = getState().inspector;
  const data = inspectStep === null ? null : recordedStepRollouts(rec.record, inspectStep);
  // Keep the opened completion and token when the new step has them.
  const open =
    insp.open && data?.records.some((r) => r.group === insp.open!.group && r.index === insp.open!.index)
      ? insp.open
      : null;
  setState({
    recording: { ...rec, ...recordedSeries(rec.record, at) },
    inspector: { ...insp, step: inspectStep, data, loading: false, open, token: open ? insp.token : null },
  });
}

/** One stop back or forward on the scrubber. */
export function scrubBy(delta: -1 | 1): void {
  const rec = getState().recording;
  if (!rec) return;
  const i = rec.steps.indexOf(rec.series.step);
  const next = rec.steps[Math.min(rec.steps.length - 1, Math.max(0, i + delta))];
  if (next !== undefined) scrubTo(next);
}

/** The page shows the live run again; the recording stays open (the banner can show it again). */
export function showLive(): void {
  const rec = getState().recording;
  if (!rec?.showing) return;
  const { liveInspector } = rec;
  setState({
    recording: { ...rec, showing: false, liveInspector: null },
    ...(liveInspector ? { inspector: liveInspector } : {}),
  });
}

export function showRecording(): void {
  const rec = getState().recording;
  if (!rec || rec.showing) return;
  setState({ recording: { ...rec, showing: true, liveInspector: getState().inspector } });
  scrubTo(rec.series.step);
}

export function closeRecording(): void {
  const arms = !!getState().recording?.arms;
  showLive();
  setState({ recording: null });
  // A lesson's recorded arms go with it (Compare would otherwise draw recordings no longer open).
  if (arms && getState().compare.a.state === 'recorded')
    setState((s) => ({
      compare: { ...s.compare, a: idleSide('A'), b: idleSide('B'), c: null, diff: [], overSeeds: null },
    }));
  setState({ recordedArms: { opened: getState().recordedArms.opened, mean: null } });
  // The link no longer opens it: the address bar shows the setup alone (as boot.ts writes it).
  if (searchToSetup(location.search).page.run !== null) {
    const q = setupToSearch(getState().setup, selectedManifest());
    history.replaceState(null, '', `${location.pathname}${q ? `?${q}` : ''}${location.hash}`);
  }
}

/** A recorded run as a Compare side: its curves and evaluations; it does not train. */
export function recordedSide(label: string, record: RunRecord): CompareSide {
  const last = record.steps[record.steps.length - 1]?.step ?? 0;
  return { label, config: record.config, ...recordedSeries(record, last, 'side').series, state: 'recorded' };
}

/**
 * Compare: the recording becomes side C (it does not train) and the page shows the Compare view,
 * where "Run both" trains A and B live beside it for as many steps as the recording has. The setup
 * (A, and B over it) takes the recording's task and seed, as opening a lesson sets the setup, so the
 * live runs see the recording's prompts; the live main run itself is not touched.
 */
export function compareWithLive(): void {
  const rec = getState().recording;
  if (!rec) return;
  const record = rec.record;
  const side = recordedSide(`C: recording ${rec.name}`, record);
  showLive();
  setState((s) => ({
    view: 'compare',
    compare: { ...s.compare, c: side, steps: Math.max(1, record.steps.length) },
    setup: {
      ...s.setup,
      checkpoint: s.setup.draft.task === record.config.task ? s.setup.checkpoint : null,
      draft: {
        ...s.setup.draft,
        task: record.config.task,
        knobs: s.setup.draft.task === record.config.task ? s.setup.draft.knobs : {},
        edits: { ...s.setup.draft.edits, seed: String(record.config.seed) },
      },
    },
  }));
}

export function dismissRecordingError(): void {
  patch('recordingLoad', { error: null });
}

/** Bytes enough to tell what a dropped file is: all of a small one (a JSON file), the head of a large one. */
const KIND_BYTES = 4 * 1024 * 1024;

/** Files dropped at once: the recorded run among them opens, and each of the others is reported by what it is. */
async function openDropped(files: File[]): Promise<void> {
  if (!files.length) return;
  const head = async (f: File) => new Uint8Array(await f.slice(0, KIND_BYTES).arrayBuffer());
  const read = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: await head(f) })));
  const plan = droppedFilesPlan(read);
  const opened = plan.open === null ? null : files[plan.open]!;
  const ok = opened ? await openRecordFile(opened) : false;
  if (!plan.notes.length) return;
  // The opened file's own error (when it was not readable) first, then a line for each other file.
  const first = !opened
    ? `Dropped ${files.length} files; none is a recorded run (.rlvr.gz).`
    : ok
      ? `Opened ${opened.name}.`
      : getState().recordingLoad.error;
  patch('recordingLoad', { loading: null, error: [first, ...plan.notes].join(' · ') });
}

/**
 * Drag-and-drop anywhere on the page: a dropped folder opens in the run viewer; of dropped files, the
 * recording opens and the others are named (installed once).
 */
export function installRecordDrop(target: Window = window): void {
  const hasFiles = (e: DragEvent) => !!e.dataTransfer && [...e.dataTransfer.types].includes('Files');
  target.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer!.dropEffect = 'copy';
  });
  target.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    // A drop on a control of its own (a file input) is that control's.
    if (e.target instanceof HTMLInputElement && e.target.type === 'file') return;
    e.preventDefault();
    // A folder goes to the run viewer (every run found in it); a file is a recording.
    const dir = droppedDirectory(e);
    if (dir) {
      const failed = (err: unknown) => folderFailed(`Could not read the dropped folder ${dir.name}: ${message(err)}`);
      void folderFromEntry(dir).then(openFolder, failed);
      return;
    }
    void openDropped([...e.dataTransfer!.files]);
  });
}
