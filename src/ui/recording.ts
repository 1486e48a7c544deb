/**
 * Recorded runs in the page: open a run record (src/record/run-record.ts) from a file (picker or
 * drag-and-drop), from a URL (`?run=URL`, the page's own origin) or from the shipped list
 * (public/records/index.json), and show it with the live run's own views: the charts draw the
 * record's metrics, the rollout inspector and objective panel its rollouts, the pass@k view its
 * held-out evaluations, all at the step the scrubber is at.
 *
 * Opening a record never touches the live run: the record is read and decoded in its own short-lived
 * worker (workers/record-reader.worker.ts), not the trainer worker, and lands in the store's
 * `recording` slice; `run`, `metrics`, `evals` and the autosave are left as they are. A bad file
 * leaves whatever was open (the live run, an earlier recording) and says what is wrong with it.
 */
import { mb, readCapped, RUN_RECORD_MAX_BYTES, type DecodeResult, type RunRecord } from '../record/run-record.ts';
import type { StepRollouts } from '../../workers/protocol.ts';
import { settingsOf } from '../../workers/inspection.ts';
import { configDiffAll } from './compare.ts';
import { difficultyMetrics } from './run-series.ts';
import { armOverSeeds } from './lesson-seeds.ts';
import { getState, idleSide, patch, setState, type AppState, type CompareSide, type RecordingState } from './store.ts';
import { searchToSetup, setupToSearch } from './url-state.ts';
import { selectedManifest } from './setup-state.ts';
import { droppedFilesPlan } from '../util/file-kind.ts';
import { droppedDirectory, folderFromEntry } from './viewer/folder-files.ts';
import { folderFailed, openFolder } from './viewer/viewer-actions.ts';
import { showsRecording } from './shown-run.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** A shipped record (public/records/index.json). */
export interface ShippedRecord {
  /** Path under the app's base URL, e.g. records/sat-grpo-30.rlvr.gz. */
  file: string;
  title: string;
  /** `rlvr lesson run` records: which lesson, arm and seed. */
  lesson?: { id: string; arm: string; seed: number };
}

const appUrl = (path: string) => new URL(path, new URL(import.meta.env.BASE_URL || '/', location.href)).href;

/** Each open gets a number; a slower earlier open that finishes later is dropped. */
let opening = 0;

function failed(name: string, why: string): void {
  patch('recordingLoad', { loading: null, error: `Could not open ${name}: ${why}` });
}

const startReader = () =>
  new Worker(new URL('../../workers/record-reader.worker.ts', import.meta.url), {
    type: 'module',
    name: 'record reader',
  });
/**
 * Readers started ahead (the opener is on screen), so an open does not wait for a worker's script: as
 * many as a lesson opens at once (its arms, up to three, are decoded in parallel).
 */
const spareReaders: Worker[] = [];
const SPARE_READERS = 3;

export function prewarmRecordReader(): void {
  while (spareReaders.length < SPARE_READERS) spareReaders.push(startReader());
}

/** Decodes in a worker of its own, ended when it answers: a huge or hostile file cannot hold the page. */
export function decodeOffThread(bytes: ArrayBuffer): Promise<DecodeResult> {
  return new Promise((ok) => {
    const worker = spareReaders.pop() ?? startReader();
    const end = (r: DecodeResult) => {
      worker.terminate();
      ok(r);
      // Ready for the next open (another lesson, another arm) once this one has settled.
      setTimeout(prewarmRecordReader, 2000);
    };
    worker.addEventListener('message', (e: MessageEvent<DecodeResult>) => end(e.data));
    worker.addEventListener('error', (e) => {
      e.preventDefault();
      end({ ok: false, error: `the reader stopped: ${e.message || 'it ran out of memory or failed to load'}` });
    });
    worker.addEventListener('messageerror', () =>
      end({ ok: false, error: 'the decoded record could not be passed to the page' }),
    );
    worker.postMessage(bytes, [bytes]);
  });
}

async function openBytes(name: string, read: () => Promise<ArrayBuffer>, ticket: number): Promise<boolean> {
  // Marks of the opening's phases (the e2e test reports them).
  performance.mark('record-open');
  let bytes: ArrayBuffer;
  try {
    bytes = await read();
    performance.mark('record-read');
  } catch (e) {
    if (ticket === opening) failed(name, message(e));
    return false;
  }
  const r = await decodeOffThread(bytes);
  performance.mark('record-decoded');
  if (ticket !== opening) return false;
  if (!r.ok) {
    failed(name, r.error);
    return false;
  }
  showRecord(name, r.record, r.notes);
  performance.mark('record-shown');
  return true;
}

function sizeRefusal(bytes: number): string {
  return `not a readable run record: the file is ${mb(bytes)}; records of ${mb(RUN_RECORD_MAX_BYTES)} or more are refused`;
}

/** From the file picker or a drop. A file at or over the size limit is refused before it is read. */
export async function openRecordFile(file: File): Promise<boolean> {
  const ticket = ++opening;
  if (file.size >= RUN_RECORD_MAX_BYTES) {
    failed(file.name, sizeRefusal(file.size));
    return false;
  }
  patch('recordingLoad', { loading: file.name, error: null });
  return openBytes(file.name, () => file.arrayBuffer(), ticket);
}

/** Reads a response body, refusing it as soon as it reaches the size limit. */
async function readResponseCapped(res: Response): Promise<ArrayBuffer> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared >= RUN_RECORD_MAX_BYTES) throw new Error(sizeRefusal(declared));
  if (!res.body) return res.arrayBuffer();
  const bytes = await readCapped(
    res.body.getReader(),
    RUN_RECORD_MAX_BYTES - 1,
    (total) => new Error(sizeRefusal(total)),
  );
  return bytes.buffer as ArrayBuffer;
}

/** An http(s) URL against the page, or why it cannot be read. */
function recordHref(url: string): URL | string {
  let href: URL;
  try {
    href = new URL(url, location.href);
  } catch {
    return 'it is not a URL';
  }
  if (href.protocol !== 'http:' && href.protocol !== 'https:')
    return `only http(s) addresses can be opened, not ${href.protocol}`;
  return href;
}

/** A record's bytes from a URL, refused with the reason (a failed download, an error page, too large). */
async function download(href: URL): Promise<ArrayBuffer> {
  let res: Response;
  try {
    res = await fetch(href.href, { cache: 'no-cache' });
  } catch (e) {
    const other =
      href.origin !== location.origin
        ? ` (this page may read only its own site, ${location.origin}: put the record beside the page)`
        : '';
    throw new Error(`the download failed: ${message(e)}${other}`);
  }
  if (!res.ok) throw new Error(`the server answered HTTP ${res.status}${res.status === 404 ? ' (no such file)' : ''}`);
  if (/text\/html/i.test(res.headers.get('content-type') ?? ''))
    throw new Error('the server answered with a web page, not a record (is the address right?)');
  return readResponseCapped(res);
}

/** A record at a URL (relative URLs are read against the page). */
export async function openRecordUrl(url: string, title?: string): Promise<boolean> {
  const ticket = ++opening;
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
    step: steps[steps.length - 1] ?? 0,
    steps,
    rolloutSteps: ascending(record.rollouts.map((r) => r.step)),
    metrics: [],
    evals: [],
    histogram: null,
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
  scrubTo(rec.step);
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
  const metrics = rec.record.steps.filter((s) => s.step <= at).map((s) => s.metrics);
  const evals = rec.record.evals.filter((e) => e.step <= at);
  let histogram: RecordingState['histogram'] = null;
  for (const s of rec.record.steps) if (s.step <= at && s.advantage_histogram) histogram = s.advantage_histogram;
  const inspectStep = rolloutStepFor(rec, at);
  const insp = getState().inspector;
  const data = inspectStep === null ? null : recordedStepRollouts(rec.record, inspectStep);
  // Keep the opened completion and token when the new step has them.
  const open =
    insp.open && data?.records.some((r) => r.group === insp.open!.group && r.index === insp.open!.index)
      ? insp.open
      : null;
  setState({
    recording: { ...rec, step: at, metrics, evals, histogram },
    inspector: { ...insp, step: inspectStep, data, loading: false, open, token: open ? insp.token : null },
  });
}

/** One stop back or forward on the scrubber. */
export function scrubBy(delta: -1 | 1): void {
  const rec = getState().recording;
  if (!rec) return;
  const i = rec.steps.indexOf(rec.step);
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
  scrubTo(rec.step);
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
  return {
    label,
    config: record.config,
    metrics: record.steps.map((s) => ({ ...s.metrics, ...difficultyMetrics(s.difficulty) })),
    evals: record.evals,
    state: 'recorded',
    step: record.steps[record.steps.length - 1]?.step ?? 0,
    error: null,
  };
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

// ---- shipped records -----------------------------------------------------------------------------

let shippedLoad: Promise<ShippedRecord[]> | null = null;

/** public/records/index.json: the records the app ships (absent: none). */
export function loadShippedRecords(): Promise<ShippedRecord[]> {
  shippedLoad ??= (async () => {
    try {
      const res = await fetch(appUrl('records/index.json'), { headers: { accept: 'application/json' } });
      if (!res.ok || !/json/i.test(res.headers.get('content-type') ?? '')) return [];
      const json: unknown = await res.json();
      const list = (json as { records?: unknown }).records;
      if (!Array.isArray(list)) return [];
      return list.filter(
        (x): x is ShippedRecord =>
          typeof x === 'object' &&
          x !== null &&
          typeof (x as ShippedRecord).file === 'string' &&
          typeof (x as ShippedRecord).title === 'string',
      );
    } catch {
      return [];
    }
  })();
  return shippedLoad;
}

export function openShippedRecord(r: ShippedRecord): Promise<boolean> {
  return openRecordUrl(appUrl(r.file), r.title);
}

type OverSeeds = NonNullable<AppState['compare']['overSeeds']>;

/** A lesson's other seeds, whose records are averaged with the shown seed's into the curves Compare draws. */
export interface SeedsToAverage {
  /** Every seed, in the lesson's order. */
  seeds: readonly number[];
  /** The seed of the records the scrubber and rollouts show. */
  shownSeed: number;
  /** The other seeds' records, one per arm in the arms' order. */
  others: { seed: number; records: ShippedRecord[] }[];
  /** What the banner says the curves and the rollouts are. */
  text: string;
}

/**
 * A lesson's recorded arms on one seed, opened together: every arm is read and decoded at once (each
 * in its own reader), Compare draws them all as recorded sides (A, B and C; none trains), and the
 * scrubber, rollout inspector and pass@k view show the first arm's record (`inspectArm` switches).
 * Nothing opens unless every arm could be read; the error names the one that could not.
 */
export async function openRecordedArms(
  arms: { label: string; record: ShippedRecord }[],
  title: string,
  over?: SeedsToAverage,
): Promise<boolean> {
  const ticket = ++opening;
  patch('recordingLoad', { loading: title, error: null });
  performance.mark('record-open');
  const readOne = async ({ label, record }: { label: string; record: ShippedRecord }) => {
    const href = recordHref(appUrl(record.file));
    if (typeof href === 'string') return { label, name: record.title, r: { ok: false, error: href } as DecodeResult };
    try {
      return { label, name: record.title, r: await decodeOffThread(await download(href)) };
    } catch (e) {
      return { label, name: record.title, r: { ok: false, error: message(e) } as DecodeResult };
    }
  };
  const decoded = await Promise.all(arms.map(readOne));
  performance.mark('record-decoded');
  // Dropped when another open started meanwhile, or when Compare started training (Run it live pressed
  // while the records were still being read): recordings never replace live runs.
  const dropped = () => ticket !== opening || getState().compare.running;
  if (dropped()) {
    if (ticket === opening) patch('recordingLoad', { loading: null, error: null });
    return false;
  }
  const bad = decoded.find((d) => !d.r.ok);
  if (bad && !bad.r.ok) {
    failed(bad.name, bad.r.error);
    return false;
  }
  const opened = decoded.map((d) =>
    d.r.ok ? { label: d.label, name: d.name, record: d.r.record, notes: d.r.notes } : null!,
  );
  setState({ recordedArms: { opened, mean: null } });
  // The shown seed first (one on which the effect shows, where there is one): the page opens at once,
  // and the banner says the mean is on its way until the other seeds are read.
  const pending = over
    ? `Reading seeds ${over.seeds.filter((x) => x !== over.shownSeed).join(', ')} to draw the mean over all ${over.seeds.length}; the curves are seed ${over.shownSeed}'s until then.`
    : '';
  showArms(0, over ? { seeds: [...over.seeds], shownSeed: over.shownSeed, text: pending, pending: true } : null);
  performance.mark('record-shown');
  if (!over) return true;
  // The other seeds' records, once the page has drawn the shown seed and one at a time (a reader is
  // a worker: more at once took the cores the first draw needs), kept as curves only.
  await new Promise((ok) =>
    typeof requestIdleCallback === 'function' ? requestIdleCallback(ok, { timeout: 3000 }) : setTimeout(ok, 500),
  );
  const others: { seed: number; arm: number; record: RunRecord }[] = [];
  const queue = over.others.flatMap((o) => o.records.map((record, arm) => ({ seed: o.seed, arm, record })));
  let error: string | null = null;
  await Promise.all(
    Array.from({ length: 1 }, async () => {
      for (let job = queue.shift(); job && !error; job = queue.shift()) {
        const got = await readOne({ label: arms[job.arm]!.label, record: job.record });
        if (got.r.ok) others.push({ seed: job.seed, arm: job.arm, record: got.r.record });
        else error = `${got.name}: ${got.r.error}`;
      }
    }),
  );
  const shown = getState().compare;
  if (dropped() || shown.a.state !== 'recorded' || shown.overSeeds?.shownSeed !== over.shownSeed) return true;
  if (error) {
    const overSeeds: OverSeeds = {
      seeds: [...over.seeds],
      shownSeed: over.shownSeed,
      text: `The mean over the seeds could not be drawn (${error}): the curves are seed ${over.shownSeed}'s alone.`,
    };
    patch('compare', { overSeeds });
    return true;
  }
  const meanSides = getState().recordedArms.opened.map((a, arm) => {
    const records = [{ seed: over.shownSeed, record: a.record }, ...others.filter((o) => o.arm === arm)].sort(
      (x, y) => over.seeds.indexOf(x.seed) - over.seeds.indexOf(y.seed),
    );
    const mean = armOverSeeds(records.map((x) => ({ ...x, metrics: recordedSide(a.label, x.record).metrics })));
    return { ...recordedSide(a.label, a.record), ...mean, step: mean.metrics[mean.metrics.length - 1]?.step ?? 0 };
  });
  const overSeeds: OverSeeds = { seeds: [...over.seeds], shownSeed: over.shownSeed, text: over.text };
  setState((s) => ({ recordedArms: { ...s.recordedArms, mean: meanSides } }));
  const [a, b, c] = meanSides;
  patch('compare', { a: a!, b: b ?? idleSide('B'), c: c ?? null, overSeeds });
  performance.mark('record-seeds-shown');
  return true;
}

/** Drops an open still being read (its result is not shown): "Run it live" pressed before a lesson's records arrived. */
export function cancelRecordOpen(): void {
  opening++;
  patch('recordingLoad', { loading: null, error: null });
}

/**
 * Compare draws the opened recordings as its sides (none trains), with `overSeeds` (what a lesson's
 * curves average); the scrubber and inspector show arm `shown`'s.
 */
function showArms(shown: number, overSeeds: OverSeeds | null): void {
  const { opened: openedArms, mean } = getState().recordedArms;
  const arm = openedArms[shown]!;
  const sides = mean ?? openedArms.map((a) => recordedSide(a.label, a.record));
  const longest = Math.max(1, ...openedArms.map((a) => a.record.steps.length));
  showRecord(arm.name, arm.record, arm.notes, {
    arms: openedArms.map((a) => ({ label: a.label, name: a.name })),
    view: 'compare',
  });
  setState((s) => ({
    compare: {
      ...s.compare,
      running: false,
      a: sides[0]!,
      b: sides[1] ?? idleSide('B'),
      c: sides[2] ?? null,
      steps: longest,
      diff: sides.length > 1 ? configDiffAll(openedArms.map((a) => a.record.config)) : [],
      overSeeds,
    },
  }));
}

/** How many recordings Compare can draw side by side (A, B, C). */
export const MAX_COMPARED_RECORDINGS = 3;

/**
 * "Add to Compare": the shown recording joins the recordings Compare draws side by side (two
 * recordings, or three; a lesson's arms count too). Live runs in Compare give way: its sides become
 * the recordings. Refused, saying why, when three are there already or Compare is training.
 */
export function addRecordingToCompare(): void {
  const rec = getState().recording;
  if (!rec) return;
  if (getState().compare.running) {
    patch('recordingLoad', {
      loading: null,
      error: 'Compare is training: pause or stop its runs before putting recordings there (nothing was changed).',
    });
    return;
  }
  // Recordings already drawn there stay only while Compare still shows them.
  const openedArms = getState().compare.a.state === 'recorded' ? getState().recordedArms.opened : [];
  if (openedArms.some((a) => a.name === rec.name)) {
    setState({ view: 'compare' });
    return;
  }
  if (openedArms.length >= MAX_COMPARED_RECORDINGS) {
    patch('recordingLoad', {
      loading: null,
      error: `Compare already draws ${MAX_COMPARED_RECORDINGS} recordings (A, B and C): close the recording to start again (nothing was changed).`,
    });
    return;
  }
  const short = rec.name.replace(/^.*\//, '').replace(/\.rlvr\.gz$/, '');
  const opened = [...openedArms, { label: short, name: rec.name, record: rec.record, notes: rec.notes }];
  setState({ recordedArms: { opened, mean: null } });
  showArms(opened.length - 1, null);
}

/** Shows another of the opened arms' records in the scrubber, inspector and pass@k view (at the same step). */
export function inspectArm(label: string): void {
  const rec = getState().recording;
  const arm = getState().recordedArms.opened.find((a) => a.label === label);
  if (!rec?.arms || !arm || rec.name === arm.name) return;
  const step = rec.step;
  const view = getState().view;
  showRecord(arm.name, arm.record, arm.notes, { arms: rec.arms, view });
  scrubTo(step);
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
