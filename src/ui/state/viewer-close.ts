/**
 * Closing a run in the run viewer: it leaves the list, what the page showed of it goes, and its reader frees
 * it (run-sources.ts ReaderRun.dispose: the reader worker ends with the last run of its folder that was open,
 * and the helpers that shared its searches end at once). Nothing else open is touched.
 */
import { getState, setState } from './store.ts';
import { cancelJob, takeRunHandle } from './viewer-handles.ts';
import { initialViewer, type ViewerState } from './viewer-state.ts';

/** The fields that show the open run: back to nothing open. */
const nothingOpen: Partial<ViewerState> = {
  open: null,
  step: null,
  stepData: null,
  stepLoading: false,
  stepError: null,
  selected: null,
  search: initialViewer.search,
  applied: null,
  prompt: null,
  promptSearch: initialViewer.promptSearch,
  compareWith: null,
  comparePromptSearch: initialViewer.comparePromptSearch,
  findings: initialViewer.findings,
  marked: null,
  aligned: null,
};

/** Closes the viewer's run `key` (a no-op for one it does not list). */
export function closeViewerRun(key: string): void {
  const v = getState().viewer;
  const run = v.runs.find((r) => r.key === key);
  if (!run) return;
  // The searches and findings of what stops being shown are cancelled; the others go on.
  if (v.open === key) for (const job of [v.search, v.promptSearch, v.findings]) cancelJob(job.job);
  if (v.open === key || v.compareWith === key) cancelJob(v.comparePromptSearch.job);
  takeRunHandle(key)?.dispose();
  const runs = v.runs.filter((r) => r.key !== key);
  setState((s) => ({
    viewer: {
      ...s.viewer,
      runs,
      ...(s.viewer.open === key ? nothingOpen : {}),
      ...(s.viewer.compareWith === key
        ? { compareWith: null, comparePromptSearch: initialViewer.comparePromptSearch }
        : {}),
    },
  }));
}
