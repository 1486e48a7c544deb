/**
 * The run viewer's actions: they call the run sources (run-sources.ts: the reader's worker) and write
 * the store's one `viewer` slot (viewer-state.ts). Every await re-reads the slot before writing, so an
 * answer for a run or step the person has since left is dropped. Nothing here touches the live run,
 * its worker or its autosave: a bad folder shows its problems and leaves training as it was.
 */
import type { FoundRun, RunQuery, RunSearchOptions } from '../../runs/types.ts';
import { getState, setState } from './store.ts';
import { searchToSetup } from '../derive/url-state.ts';
import { folderSource, listServedRuns, servedSource, type RunSource } from './run-sources.ts';
import type { PickedFolder } from '../derive/folder-files.ts';
import { nearestStep } from '../derive/run-view-model.ts';
import { formFromQuery, parseSearchForm, type SearchForm } from '../derive/search-form.ts';
import { findingRowsOf } from '../../runs/search-query.ts';
import { cancelJob, endJob, keepRunHandle, runHandle, startJob } from './viewer-handles.ts';
import {
  idleFindings,
  idleSearch,
  type TokenColour,
  type ViewerRun,
  type ViewerSearch,
  type ViewerState,
} from './viewer-state.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
/** Search hits kept for the page (the count goes on past it). */
export const SEARCH_LIMIT = 200;

const viewer = () => getState().viewer;
function set(v: Partial<ViewerState>): void {
  setState((s) => ({ viewer: { ...s.viewer, ...v } }));
}
function setRun(key: string, v: Partial<ViewerRun>): void {
  set({ runs: viewer().runs.map((r) => (r.key === key ? { ...r, ...v } : r)) });
}
export const runByKey = (key: string | null) => viewer().runs.find((r) => r.key === key) ?? null;

/** Opens every run found in a folder the person picked or dropped; the first becomes the open one. */
export async function openFolder(folder: PickedFolder): Promise<void> {
  setState({ view: 'viewer' });
  set({ loading: `Reading the folder ${folder.name} (${folder.files.length} files)…`, error: null, problems: [] });
  const source = folderSource(folder);
  try {
    await openFound(folder, source);
  } finally {
    source.dispose(); // nothing more is opened from it: its worker ends with the last of its runs closed
  }
}

async function openFound(folder: PickedFolder, source: RunSource): Promise<void> {
  let found: FoundRun[];
  try {
    const detected = await source.detect();
    found = detected.runs;
    set({ problems: detected.problems.map((p) => ({ ...p, file: `${folder.name}/${p.file}` })) });
  } catch (e) {
    set({ loading: null, error: `Could not read the folder ${folder.name}: ${message(e)}` });
    return;
  }
  if (!found.length) {
    set({
      loading: null,
      error:
        `Found no run in the folder ${folder.name}: expected TRL's completions/completions_*.parquet, ` +
        `veRL's {step}.jsonl files, the documented JSONL or a .rlvr.gz record`,
    });
    return;
  }
  const opened = viewer().runs.length;
  const added: ViewerRun[] = found.map((f, i) => ({
    key: `folder:${opened + i}:${folder.name}/${f.path}`,
    name: found.length > 1 || f.path ? `${folder.name}/${f.path || f.name}` : folder.name,
    format: f.format,
    origin: 'folder',
    opened: false,
    index: null,
    loading: true,
    error: null,
  }));
  set({ runs: [...viewer().runs, ...added], loading: null });
  await Promise.all(added.map((r, i) => openInto(r.key, source, found[i]!)));
  const first = added.find((r) => runByKey(r.key)?.index);
  if (first) await showRun(first.key);
}

async function openInto(key: string, source: RunSource, found: FoundRun, firstStep?: number): Promise<boolean> {
  try {
    const handle = await source.open(found, firstStep);
    // Closed while it was being opened: nothing shows it, so its reader frees it now.
    if (!runByKey(key)) {
      handle.dispose();
      return false;
    }
    keepRunHandle(key, handle);
    setRun(key, { opened: true, index: handle.index, loading: false, error: null });
    return true;
  } catch (e) {
    setRun(key, { loading: false, error: `Could not open ${found.name}: ${message(e)}` });
    return false;
  }
}

/**
 * When `rlvr view` serves the page: lists its runs, and opens the one the link names at its step and
 * prompt. Returns whether the page is served by it.
 */
export async function openServed(link = searchToSetup(location.search).page.viewer): Promise<boolean> {
  // A link to a run: its reader starts, and finds the run in its files, while runs.json is fetched.
  const early = link.name ? startServed(link.name) : undefined;
  try {
    return await openListed(link, early);
  } finally {
    early?.source.dispose(); // the run it found is open, or there was none to open
  }
}

type ViewerLink = ReturnType<typeof searchToSetup>['page']['viewer'];

async function openListed(link: ViewerLink, early: StartedServed | undefined): Promise<boolean> {
  const listed = await listServedRuns();
  if (!listed) return false;
  set({ served: true });
  mergeServed(listed);
  if (link.name) {
    setState({ view: 'viewer' });
    if (link.finding) set({ findingKind: link.finding });
    if (link.filter) set({ form: formFromQuery(link.filter) });
    const run = viewer().runs.find((r) => r.origin === 'server' && r.name === link.name);
    if (!run)
      set({
        error: `rlvr view serves no run named "${link.name}" (it serves: ${listed.map((r) => r.name).join(', ')})`,
      });
    else {
      await showRun(run.key, link.step, link.prompt, early);
      if (link.filter) runSearch();
    }
  } else if (listed.length && !getState().lesson.active) setState({ view: 'viewer' });
  return true;
}

function mergeServed(listed: { name: string; format: ViewerRun['format']; steps: number; errors?: string[] }[]): void {
  const runs = [...viewer().runs];
  for (const l of listed) {
    const key = `server:${l.name}`;
    const i = runs.findIndex((r) => r.key === key);
    const listedErrors = l.errors ?? [];
    if (i >= 0) runs[i] = { ...runs[i]!, listedSteps: l.steps, listedErrors };
    else {
      const fresh = { opened: false, index: null, loading: false, error: null };
      runs.push({
        key,
        name: l.name,
        format: l.format,
        origin: 'server',
        ...fresh,
        listedSteps: l.steps,
        listedErrors,
      });
    }
  }
  set({ runs });
}

/** A served run's reader, already finding the run in its files (the first thing opening it does). */
interface StartedServed {
  source: RunSource;
  detected: ReturnType<RunSource['detect']>;
}

function startServed(name: string): StartedServed {
  const source = servedSource(name);
  const detected = source.detect();
  detected.catch(() => undefined); // openServedRun reports it, if the run is opened
  return { source, detected };
}

/**
 * Reads the index of a run `rlvr view` lists (its folder holds the one run; a record is a file in it).
 * `firstStep`: the step to be shown (-Infinity: the first), which the reader reads as soon as its index.
 */
async function openServedRun(run: ViewerRun, early?: StartedServed, firstStep?: number): Promise<void> {
  setRun(run.key, { loading: true, error: null });
  const { source, detected } = early ?? startServed(run.name);
  let found: FoundRun | undefined;
  try {
    found = (await detected).runs[0];
  } catch (e) {
    source.dispose();
    setRun(run.key, { loading: false, error: `Could not read ${run.name} from rlvr view: ${message(e)}` });
    return;
  }
  if (found) await openInto(run.key, source, found, firstStep);
  else setRun(run.key, { loading: false, error: `rlvr view lists ${run.name}, but no run was found in its files` });
  source.dispose(); // its worker is the opened run's now, or ends
}

/** Opens a listed run (reading its index first when it is a served one not read yet) at a step. */
export async function showRun(
  key: string,
  step: number | null = null,
  prompt: string | null = null,
  early?: StartedServed,
): Promise<void> {
  let run = runByKey(key);
  if (!run) return;
  cancelJob(viewer().findings.job);
  set({
    open: key,
    step: null,
    stepData: null,
    selected: null,
    curves: null,
    search: idleSearch,
    applied: null,
    prompt: null,
    promptSearch: idleSearch,
    findings: idleFindings,
    marked: null,
  });
  if (!run.opened && run.origin === 'server' && !run.loading) {
    await openServedRun(run, early, step ?? Number.NEGATIVE_INFINITY);
    run = runByKey(key);
  }
  if (!run?.index || viewer().open !== key) return;
  const steps = run.index.steps;
  const target = step === null ? (steps[0] ?? null) : nearestStep(steps, step);
  if (target !== null) await showStep(target);
  if (prompt !== null) void followPrompt(prompt);
}

/** Reads one step of the open run (the reader reads only that step's rows). */
export async function showStep(step: number): Promise<void> {
  const run = runByKey(viewer().open);
  const handle = runHandle(run?.key);
  if (!run || !handle) return;
  set({ step, stepLoading: true, stepError: null, selected: null });
  try {
    const data = await handle.readStep(step);
    if (viewer().open === run.key && viewer().step === step) set({ stepData: data, stepLoading: false });
  } catch (e) {
    if (viewer().open === run.key && viewer().step === step) {
      set({
        stepData: null,
        stepLoading: false,
        stepError: `Could not read step ${step} of ${run.name}: ${message(e)}`,
      });
    }
  }
}

/** Moves the scrubber by `delta` steps that have rollouts. */
export function stepBy(delta: number): void {
  const steps = runByKey(viewer().open)?.index?.steps ?? [];
  const i = steps.indexOf(viewer().step ?? NaN);
  const next = steps[Math.min(steps.length - 1, Math.max(0, i + delta))];
  if (next !== undefined && next !== viewer().step) void showStep(next);
}

export const selectCompletion = (group: number, row: number) => set({ selected: { group, row } });
export const setColour = (colour: TokenColour) => set({ colour });
export const setCurves = (curves: string[]) => set({ curves });
export const setForm = (form: Partial<SearchForm>) => set({ form: { ...viewer().form, ...form } });
export const dismissError = () => set({ error: null });

/** A folder that could not even be listed (a dropped folder the browser would not walk): said in the viewer. */
export function folderFailed(error: string): void {
  setState({ view: 'viewer' });
  set({ loading: null, error });
}

type SearchSlot = 'search' | 'promptSearch' | 'comparePromptSearch';

/** Runs a search over every step of a run into one of the slot's searches, with progress; cancellable. */
async function searchInto(
  slot: SearchSlot,
  key: string,
  query: RunQuery,
  more: Pick<RunSearchOptions, 'histogram' | 'findingRows'> = {},
): Promise<void> {
  const run = runByKey(key);
  const handle = runHandle(key);
  if (!run || !handle) return;
  cancelJob(viewer()[slot].job);
  const job = startJob();
  const mine = () => viewer()[slot].job === job.id;
  const update = (v: Partial<ViewerSearch>) => mine() && set({ [slot]: { ...viewer()[slot], ...v } });
  set({ [slot]: { ...idleSearch, running: true, job: job.id } });
  const options: RunSearchOptions = {
    signal: job.signal,
    limit: SEARCH_LIMIT,
    onProgress: (progress) => update({ progress }),
    ...more,
  };
  try {
    // A folder's finding filter takes the rows from the run's findings, looked for once (rlvr view has its own).
    if (query.finding !== undefined && run.origin === 'folder' && !more.findingRows) {
      const list = viewer().findings.list ?? (await handle.findings?.({ signal: job.signal }))?.findings ?? [];
      options.findingRows = findingRowsOf(list, query.finding);
    }
    const result = await handle.search(query, options);
    update({ result, running: false });
  } catch (e) {
    update({ error: `The search of ${run.name} failed: ${message(e)}`, running: false });
  } finally {
    endJob(job.id);
  }
}

/** The search form over every step of the open run. */
export function runSearch(): void {
  const key = viewer().open;
  const parsed = parseSearchForm(viewer().form);
  if (!parsed.ok) {
    set({ search: { ...idleSearch, error: parsed.error } });
    return;
  }
  set({ applied: parsed.query });
  if (key) void searchInto('search', key, parsed.query, { histogram: true });
}

export function cancelSearch(slot: SearchSlot = 'search'): void {
  cancelJob(viewer()[slot].job);
}

/** "This prompt over training": every step where the prompt was sampled, in the open run and the compared one. */
export async function followPrompt(prompt: string): Promise<void> {
  const { open, compareWith } = viewer();
  if (!open) return;
  set({ prompt });
  await Promise.all([
    searchInto('promptSearch', open, { prompt }),
    compareWith ? searchInto('comparePromptSearch', compareWith, { prompt }) : undefined,
  ]);
}

export function closePrompt(): void {
  cancelSearch('promptSearch');
  cancelSearch('comparePromptSearch');
  set({ prompt: null, promptSearch: idleSearch, comparePromptSearch: idleSearch });
}

/** Compare: picks the other run (opening a served one), and follows the open prompt in it too. */
export async function compareWith(key: string | null): Promise<void> {
  cancelSearch('comparePromptSearch');
  set({ compareWith: key, comparePromptSearch: idleSearch });
  const run = runByKey(key);
  if (!key || !run) return;
  if (!run.opened && run.origin === 'server' && !run.loading) await openServedRun(run);
  const prompt = viewer().prompt;
  if (prompt !== null && viewer().compareWith === key) await searchInto('comparePromptSearch', key, { prompt });
}

/**
 * A live run: lists runs.json again (new runs, new step counts) and refreshes the open and compared
 * runs' indexes where runs.json counts steps they lack, so steps the trainer adds appear without a
 * reload. Called every few seconds while the viewer is on screen (components/viewer/RunViewer.tsx).
 */
export async function pollServed(): Promise<void> {
  const v = viewer();
  const listed = v.served ? await listServedRuns() : null;
  if (listed) mergeServed(listed);
  for (const key of new Set([v.open, v.compareWith])) {
    const run = runByKey(key);
    const handle = runHandle(key);
    if (!run || !handle || run.origin !== 'server') continue;
    // runs.json has just counted the run's steps as its reader does: where the index has them all, nothing
    // new is read. A refresh lists every file of the run again and rebuilds its index (at 14,913 steps,
    // work in rlvr view, the reader's worker and the page every few seconds, much of it during step switches).
    if (listed && run.listedSteps === run.index?.steps.length) continue;
    try {
      const index = await handle.refresh();
      if (runHandle(key) === handle) setRun(run.key, { index });
    } catch {
      // A file the trainer is still writing can fail to read once; the next poll reads it again.
    }
  }
  const open = runByKey(viewer().open);
  if (open?.index && viewer().step === null && open.index.steps.length) await showStep(open.index.steps[0]!);
}
