/**
 * Recordings side by side in Compare: the shipped records (public/records/index.json), a lesson's
 * recorded arms opened together (and averaged over its seeds), and "Add to Compare". The decoded arms
 * are in the store (`recordedArms`); the scrubber, inspector and pass@k view show one of them
 * (recording.ts).
 */
import type { RunRecord } from '../../record/run-record.ts';
import { configDiffAll } from './compare.ts';
import { armOverSeeds } from '../derive/lesson-seeds.ts';
import { openRecordUrl, recordedSide, scrubTo, showRecord } from './recording.ts';
import {
  appUrl,
  decodeOffThread,
  download,
  failed,
  isLatestOpen,
  message,
  newOpen,
  recordHref,
} from './recording-read.ts';
import type { DecodeResult } from '../../record/run-record.ts';
import { getState, idleSide, patch, setState, type AppState } from './store.ts';

/** A shipped record (public/records/index.json). */
export interface ShippedRecord {
  /** Path under the app's base URL, e.g. records/sat-grpo-30.rlvr.gz. */
  file: string;
  title: string;
  /** `rlvr lesson run` records: which lesson, arm and seed. */
  lesson?: { id: string; arm: string; seed: number };
}

// A cache, not run state: the one fetch of a file the build ships, shared by every caller; forgetting it only
// fetches the same list again (module-state.test.ts allows it).
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
  const ticket = newOpen();
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
  const dropped = () => !isLatestOpen(ticket) || getState().compare.running;
  if (dropped()) {
    if (isLatestOpen(ticket)) patch('recordingLoad', { loading: null, error: null });
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
    ? `Reading seeds ${over.seeds.filter((x) => x !== over.shownSeed).join(', ')} ` +
      `to draw the mean over all ${over.seeds.length}; ` +
      `the curves are seed ${over.shownSeed}'s until ` +
      'then.'
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
      error:
        `Compare already draws ${MAX_COMPARED_RECORDINGS} ` +
        'recordings (A, B and C): close the recording to ' +
        'start again (nothing was changed).',
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
  const step = rec.series.step;
  const view = getState().view;
  showRecord(arm.name, arm.record, arm.notes, { arms: rec.arms, view });
  scrubTo(step);
}
