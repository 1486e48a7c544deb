/**
 * Guided experiments, the actions: read the measured outcomes, open a lesson (from the gallery or
 * `?lesson=ID`) with its shipped recording (public/records/, recorded by `rlvr lesson run`), and start
 * its runs live only when the person presses "Run it live". A one-run lesson becomes the main run
 * (Charts view); two or three runs train side by side in the Compare view. The setup form (and Compare's B) show the
 * lesson's
 * configs, so the URL reads `?lesson=ID` until the person edits the setup.
 */
import { lessonSeeds, perSeedVerdicts, type Lesson } from '../../lessons/index.ts';
import { seedToShow, seedsSentence } from '../derive/lesson-seeds.ts';
import { runCompare, stopCompare } from './compare.ts';
import { pause, start } from './controller.ts';
import { reset } from './run-load.ts';
import {
  findLesson,
  LESSON_SEED,
  lessonForms,
  lessonRunPlans,
  parseMeasured,
  unknownLessonMessage,
} from '../derive/lesson-plan.ts';
import { getState, patch, setState, useApp } from './store.ts';
import { session } from './session.ts';
import { guardSearch } from '../derive/url-guard.ts';
import { searchToSetup, type UrlSetup } from '../derive/url-state.ts';
import { loadShippedRecords, openRecordedArms, openShippedRecord, type ShippedRecord } from './recorded-arms.ts';
import { closeRecording, showLive } from './recording.ts';
import { cancelRecordOpen } from './recording-read.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Where `rlvr lesson run` records outcomes: public/lessons/measured.json, served from the app's own base URL. */
export function measuredUrl(): string {
  return new URL('lessons/measured.json', new URL(import.meta.env.BASE_URL || '/', location.href)).href;
}

// A cache, not run state: the one fetch of measured.json (its answer lands in the store's `lesson.measured`);
// forgetting it only fetches again (module-state.test.ts allows it).
let measuredLoad: Promise<void> | null = null;

/** Reads measured.json once (again with force). Absent: every lesson shows "not measured yet". */
export function loadMeasured(force = false): Promise<void> {
  if (measuredLoad && !force) return measuredLoad;
  measuredLoad = (async () => {
    try {
      // Accept JSON only: a static server's SPA fallback would answer a missing file with index.html.
      const res = await fetch(measuredUrl(), { headers: { accept: 'application/json' }, cache: 'no-cache' });
      if (res.status === 404) {
        patch('lesson', { measured: {}, measuredNote: null });
        return;
      }
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      if (!/json/i.test(res.headers.get('content-type') ?? '')) {
        patch('lesson', { measured: {}, measuredNote: null });
        return;
      }
      const { measured, dropped } = parseMeasured(await res.json());
      patch('lesson', {
        measured,
        measuredNote: dropped
          ? `${dropped} malformed entr${dropped === 1 ? 'y' : 'ies'} in measured.json ignored`
          : null,
      });
    } catch (e) {
      patch('lesson', { measured: {}, measuredNote: `could not read lessons/measured.json: ${message(e)}` });
    }
  })();
  return measuredLoad;
}

/** The seed a lesson runs on: the one its outcome was measured with, else `rlvr lesson run`'s default. */
export function lessonSeed(id: string): number {
  const seed = getState().lesson.measured?.[id]?.seed;
  return typeof seed === 'number' && Number.isInteger(seed) && seed >= 0 ? seed : LESSON_SEED;
}

/** Editing the setup form a lesson put in place (lesson.appliedDraft) ends the lesson's hold on the URL. */
function watchSetupEdits(): void {
  if (session.setupEditsWatch) return;
  session.setupEditsWatch = useApp.subscribe((s, prev) => {
    if (s.setup.lesson && s.setup.draft !== prev.setup.draft && s.setup.draft !== s.lesson.appliedDraft) {
      setState((st) => ({ setup: { ...st.setup, lesson: null } }));
    }
  });
}

/**
 * Opens a lesson: its setup, and its shipped recording when there is one: every arm on the seed its
 * outcome was measured with, side by side in Compare (a one-run lesson: its record in the Charts tab). With `live` it
 * also starts its runs: one run as the main run,
 * two or three side by side in Compare. `steps` (> 0) replaces the lesson's step budget. False for an
 * unknown id (the gallery says which exist).
 */
export async function openLesson(id: string, opts: { steps?: number; live?: boolean } = {}): Promise<boolean> {
  const lesson = findLesson(id);
  if (!lesson) {
    setState((s) => ({ view: 'lessons', lesson: { ...s.lesson, notice: unknownLessonMessage(id) } }));
    return false;
  }
  await loadMeasured();
  const seed = lessonSeed(id);
  const steps = opts.steps && opts.steps > 0 ? Math.floor(opts.steps) : lesson.steps;
  const forms = lessonForms(lesson, seed);
  // The main run and the lesson's workers would share the cores: pause it (it is kept, not reset).
  // Showing the lesson's recording trains nothing, so the main run goes on then.
  const runState = getState().run.state;
  if (opts.live && (runState === 'running' || runState === 'pausing')) await pause();
  // The setup the person had before any lesson: closing the lesson gives it back.
  const setupBefore = getState().lesson.active ? getState().lesson.setupBefore : pickSetup(getState().setup);
  watchSetupEdits();
  setState((s) => ({
    lesson: { ...s.lesson, active: lesson.id, notice: null, live: !!opts.live, setupBefore, appliedDraft: forms.draft },
    setup: { ...s.setup, draft: forms.draft, checkpoint: null, model: null, stepBudget: steps, lesson: lesson.id },
  }));
  if (!opts.live) {
    const shipped = (await loadShippedRecords()).filter((r) => r.lesson?.id === lesson.id);
    const runs = lesson.runs.slice(0, 3);
    const armsOn = (s: number) =>
      runs.map((run) => ({
        label: run.label,
        record: shipped.find((r) => r.lesson!.seed === s && r.lesson!.arm === run.label),
      }));
    const complete = (s: number) => armsOn(s).every((a) => a.record);
    // The verdict judges the mean over the lesson's seeds: where every seed's records ship, Compare
    // draws that mean (each seed faintly), and the scrubber shows a seed on which the effect shows.
    const measured = getState().lesson.measured?.[lesson.id];
    const seeds = measured?.seeds && measured.seeds.length > 1 ? measured.seeds : [...lessonSeeds(lesson)];
    if (runs.length > 1 && seeds.length > 1 && seeds.every(complete)) {
      const shown = seedToShow(
        measured ? perSeedVerdicts(lesson, measured) : [],
        seeds.includes(seed) ? seed : seeds[0]!,
      );
      const others = seeds
        .filter((s) => s !== shown.seed)
        .map((s) => ({ seed: s, records: armsOn(s).map((a) => a.record!) }));
      const over = { seeds, shownSeed: shown.seed, others, text: seedsSentence(seeds, shown) };
      setupOnSeed(lesson, seed, shown.seed);
      await openRecordedArms(
        armsOn(shown.seed) as { label: string; record: ShippedRecord }[],
        `the recorded runs of lesson ${lesson.id} (seeds ${seeds.join(', ')})`,
        over,
      );
      return true;
    }
    // Every arm on the seed the outcome was measured with: Compare draws them all, as the live runs would be.
    const onSeed = shipped.filter((r) => r.lesson!.seed === seed);
    const arms = armsOn(seed);
    if (arms.length > 1 && arms.every((a) => a.record)) {
      await openRecordedArms(
        arms as { label: string; record: ShippedRecord }[],
        `the recorded runs of lesson ${lesson.id} (seed ${seed})`,
      );
      return true;
    }
    const pick = onSeed[0] ?? shipped[0];
    if (pick?.lesson) setupOnSeed(lesson, seed, pick.lesson.seed);
    if (pick) await openShippedRecord(pick);
    else setState({ view: 'lessons' });
    return true;
  }
  if (lesson.runs.length === 1) await startSingle();
  else await startSideBySide(lesson, seed, steps, forms.presetB, forms.editsB);
  return true;
}

/** The setup shown beside a lesson's recording is the recording's: its seed, where that is not the lesson's own. */
function setupOnSeed(lesson: Lesson, lessonSeed: number, shownSeed: number): void {
  if (shownSeed === lessonSeed) return;
  const { draft } = lessonForms(lesson, shownSeed);
  setState((s) => ({ lesson: { ...s.lesson, appliedDraft: draft }, setup: { ...s.setup, draft } }));
}

async function startSingle(): Promise<void> {
  stopCompare();
  setState({ view: 'charts' });
  if (getState().run.state !== 'idle') await reset();
  await start();
}

async function startSideBySide(
  lesson: Lesson,
  seed: number,
  steps: number,
  presetB: string,
  editsB: string,
): Promise<void> {
  patch('compare', { presetB, editsB, steps });
  setState({ view: 'compare' });
  await runCompare(lessonRunPlans(lesson, seed), steps);
}

/** "Run it live": trains the open lesson's runs (the page shows them instead of its recording). */
export async function runLessonLive(): Promise<void> {
  const id = getState().lesson.active;
  if (!id) return;
  // The lesson's records may still be on their way: they must not land over the live runs.
  cancelRecordOpen();
  showLive();
  const budget = getState().setup.stepBudget;
  await openLesson(id, { steps: budget > 0 ? budget : undefined, live: true });
}

/** The parts of the setup a lesson replaces. */
type LessonSetup = Pick<UrlSetup, 'draft' | 'checkpoint' | 'model' | 'stepBudget'>;
const pickSetup = ({ draft, checkpoint, model, stepBudget }: UrlSetup): LessonSetup => ({
  draft,
  checkpoint,
  model,
  stepBudget,
});

/**
 * Leaves the lesson: its runs keep going; the highlights, the lesson URL and its recording go, and
 * the setup is the one the person had before the lesson (its step budget included), unless they
 * edited the lesson's setup since (their edits stay).
 */
export function closeLesson(): void {
  const { active: id, setupBefore: before, appliedDraft } = getState().lesson;
  const untouched = getState().setup.draft === appliedDraft;
  setState((s) => ({
    setup: { ...s.setup, ...(before && untouched ? before : {}), lesson: null },
    lesson: { ...s.lesson, active: null, setupBefore: null, appliedDraft: null },
  }));
  if (getState().recording?.record.provenance.lesson?.id === id) closeRecording();
}

export function dismissLessonNotice(): void {
  patch('lesson', { notice: null });
}

/**
 * Experiment keys a lesson link may carry (the lesson sets everything else; page-state keys such as backend are not the
 * experiment's).
 */
const LESSON_LINK_KEYS = ['lesson', 'steps'];

/**
 * `?lesson=ID` (called once the page has booted: the checkpoint index is needed to pick the task's
 * checkpoint). An unknown id leaves the rest of the link applied and shows the known ids.
 */
export async function openLessonFromUrl(search = location.search): Promise<void> {
  const parsed = searchToSetup(guardSearch(search).search); // an over-long link is ignored whole, as boot does
  const id = parsed.page.lesson;
  if (id === null) return;
  void loadMeasured();
  if (!findLesson(id)) {
    // searchToSetup already put the same message among the link notes; the gallery shows it inline too.
    setState((s) => ({ view: 'lessons', lesson: { ...s.lesson, notice: unknownLessonMessage(id) } }));
    return;
  }
  const ignored = [...new Set(parsed.experimentKeys)].filter((k) => !LESSON_LINK_KEYS.includes(k));
  if (ignored.length)
    setState((s) => ({
      urlNotes: [...s.urlNotes, `a lesson link sets the whole experiment: ${ignored.join(', ')} not applied`],
    }));
  const budget = getState().setup.stepBudget;
  await openLesson(id, { steps: budget > 0 ? budget : undefined });
}

/** "Close the recording": a lesson's recording closes with its lesson (which gives the setup back). */
export function closeRecordingOrLesson(): void {
  const s = getState();
  if (s.lesson.active && s.recording?.record.provenance.lesson?.id === s.lesson.active) closeLesson();
  else closeRecording();
}
