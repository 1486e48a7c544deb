import { beforeEach, describe, expect, it } from 'vitest';
import { getState, setState } from './store.ts';
import { closeViewerRun } from './viewer-close.ts';
import { keepRunHandle, runHandle, startJob } from './viewer-handles.ts';
import { idleFindings, idleSearch, initialViewer, type RunHandle, type ViewerRun } from './viewer-state.ts';

const closed: string[] = [];
const run = (key: string): ViewerRun => {
  keepRunHandle(key, { dispose: () => closed.push(key) } as unknown as RunHandle);
  return { key, name: key, format: 'jsonl', origin: 'folder', opened: true, index: null, loading: false, error: null };
};

describe('closing a run in the run viewer', () => {
  beforeEach(() => {
    closed.length = 0;
    setState({ viewer: { ...initialViewer, runs: [run('a'), run('b')], open: 'a', step: 3, compareWith: 'b' } });
  });

  it('the open run: it leaves the list, nothing is shown open, and its reader is told to free it', () => {
    closeViewerRun('a');
    const v = getState().viewer;
    expect(v.runs.map((r) => r.key)).toEqual(['b']);
    expect(v).toMatchObject({ open: null, step: null, stepData: null, compareWith: null });
    expect(closed).toEqual(['a']);
    expect(runHandle('a')).toBe(null);
    expect(runHandle('b')).not.toBe(null);
  });

  it('the compared run: the open one stays open, compared with nothing', () => {
    closeViewerRun('b');
    const v = getState().viewer;
    expect(v.runs.map((r) => r.key)).toEqual(['a']);
    expect(v).toMatchObject({ open: 'a', step: 3, compareWith: null });
    expect(closed).toEqual(['b']);
  });

  it('cancels the searches and findings of what it stops showing, and only those', () => {
    const search = startJob();
    const promptSearch = startJob();
    const comparePromptSearch = startJob();
    const findings = startJob();
    const running = (job: { id: number }) => ({ ...idleSearch, running: true, job: job.id });
    setState((s) => ({
      viewer: {
        ...s.viewer,
        search: running(search),
        promptSearch: running(promptSearch),
        comparePromptSearch: running(comparePromptSearch),
        findings: { ...idleFindings, running: true, job: findings.id },
      },
    }));
    closeViewerRun('b');
    const aborted = () => [search, promptSearch, comparePromptSearch, findings].map((j) => j.signal.aborted);
    expect(aborted()).toEqual([false, false, true, false]);
    closeViewerRun('a');
    expect(aborted()).toEqual([true, true, true, true]);
  });

  it('a key it does not list: nothing changes', () => {
    const before = getState().viewer;
    closeViewerRun('c');
    expect(getState().viewer).toBe(before);
    expect(closed).toEqual([]);
  });
});
