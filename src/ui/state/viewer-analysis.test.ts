// The run viewer's search with the new filters (histogram asked for, a finding kind's rows taken from the
// run's findings, the query written to the link) and "Aligned on shared prompts" (viewer-align.ts), over
// runs opened by the real search (src/runs/opened-run.ts) on in-memory rows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { openRun } from '../../runs/detect.ts';
import { memoryRunFiles } from '../../runs/memory-files.ts';
import { readRunRecord } from '../../record/reader.ts';
import { openSource, type RunSource } from '../../runs/opened-run.ts';
import type { Finding } from '../../runs/findings/types.ts';
import type { RunCompletion } from '../../runs/types.ts';
import { getState, setState } from './store.ts';
import { compareWith, runSearch, setForm, showRun, showStep } from './viewer-actions.ts';
import { viewerLink } from './viewer-url.ts';
import { closeAligned, showAligned } from './viewer-align.ts';
import { keepRunHandle, runHandle, takeRunHandle } from './viewer-handles.ts';
import { initialViewer, type RunHandle, type ViewerRun } from './viewer-state.ts';

/** Steps `steps`; step s has prompts `p{s % 3}` and `shared`, two completions each. */
function source(name: string, steps: number[]): RunSource {
  const row = (s: number, i: number): RunCompletion => ({
    row: i,
    prompt: i < 2 ? `p${s % 3}` : 'shared',
    completion: `${name} step ${s} row ${i}`,
    rewards: { correct: i % 2, format: 0.5 },
    reward: (i % 2) + 0.5,
    length: 4,
    lengthUnit: 'chars',
    truncated: i === 3,
    extra: {},
  });
  return {
    index: async () => ({
      name,
      format: 'jsonl',
      steps,
      metrics: [],
      rewardNames: ['correct', 'format'],
      problems: [],
      notes: [],
    }),
    readRows: async (s) => ({ rows: [0, 1, 2, 3].map((i) => row(s, i)), problems: [] }),
  };
}

async function entry(key: string, steps: number[], origin: ViewerRun['origin'] = 'folder', findings?: Finding[]) {
  const handle: RunHandle = Object.assign(await openSource(source(key, steps)), {
    disposed: false,
    dispose: () => undefined,
  });
  if (findings)
    handle.findings = vi.fn(async () => ({ findings, stepsRead: steps.length, cancelled: false, problems: [] }));
  keepRunHandle(key, handle);
  return {
    key,
    name: key,
    format: 'jsonl',
    origin,
    opened: true,
    index: handle.index,
    loading: false,
    error: null,
  } as ViewerRun;
}
const v = () => getState().viewer;
const until = async (what: () => boolean) => {
  while (!what()) await new Promise((ok) => setTimeout(ok, 1));
};

beforeEach(() => setState((s) => ({ viewer: initialViewer, inspector: { ...s.inspector, step: null, data: null } })));

describe('search with filters, sort and histogram', () => {
  it("counts the matches' rewards, filters by a reward function, and writes the query to the link", async () => {
    setState({ viewer: { ...initialViewer, runs: [await entry('a', [1, 2, 3], 'server')] } });
    await showRun('a');
    setForm({ rewardRanges: { correct: { min: '1', max: '' } }, sort: 'reward.correct', order: 'asc' });
    runSearch();
    await until(() => !!v().search.result);
    expect(v().search.result!.count).toBe(6);
    expect(v().search.result!.histogram).toEqual({ width: 0, bins: [[1.5, 6, 1.5, 1.5]], nonFinite: 0 });
    expect(v().applied).toEqual({ rewardRanges: { correct: { min: 1 } }, sort: 'reward.correct', order: 'asc' });
    const link = new URL(viewerLink(v(), 'http://h/')!);
    expect([...link.searchParams]).toEqual([
      ['view', 'a'],
      ['step', '1'],
      ['f.r.correct', '1..'],
      ['f.sort', 'reward.correct'],
      ['f.dir', 'asc'],
    ]);
  });

  it("filters a folder's run by a finding kind's rows, looking for its findings once", async () => {
    const findings: Finding[] = [
      { run: 'a', kind: 'truncation', step: 2, group: null, rows: [3], score: 1, text: 't' },
      { run: 'a', kind: 'repetition', step: 1, group: 0, rows: [0], score: 1, text: 'r' },
    ];
    const run = await entry('a', [1, 2, 3], 'folder', findings);
    setState({ viewer: { ...initialViewer, runs: [run] } });
    await showRun('a');
    setForm({ finding: 'truncation' });
    runSearch();
    await until(() => !!v().search.result || !!v().search.error);
    expect(v().search.result!.hits.map((h) => [h.step, h.row])).toEqual([[2, 3]]);
    expect(runHandle(run.key)!.findings).toHaveBeenCalledTimes(1);
  });
});

describe('aligned on shared prompts', () => {
  it("puts the open step beside the compared run's nearest step, and follows the open step", async () => {
    setState({ viewer: { ...initialViewer, runs: [await entry('a', [1, 2, 3]), await entry('b', [2, 5])] } });
    await showRun('a');
    await compareWith('b');
    await showAligned('compared');
    expect(v().aligned).toMatchObject({ with: 'compared', otherName: 'b', loading: false, error: null });
    expect(v().aligned!.data).toMatchObject({ stepA: 1, stepB: 2, onlyA: 1, onlyB: 1 });
    expect(v().aligned!.data!.shared.map((p) => [p.prompt, p.b.completions.map((c) => c.completion)])).toEqual([
      ['shared', ['b step 2 row 2', 'b step 2 row 3']],
    ]);
    await showStep(2);
    await showAligned('compared');
    expect(v().aligned!.data).toMatchObject({ stepA: 2, stepB: 2, onlyA: 0, onlyB: 0 });
    expect(v().aligned!.data!.shared.map((p) => p.prompt)).toEqual(['p2', 'shared']);
    closeAligned();
    expect(v().aligned).toBe(null);
  });

  it('waits for the compared run while it is still being opened', async () => {
    const b = await entry('b', [1]);
    const bHandle = takeRunHandle('b')!; // not opened yet
    setState({ viewer: { ...initialViewer, runs: [await entry('a', [1]), { ...b, opened: false, loading: true }] } });
    await showRun('a');
    setState((s) => ({ viewer: { ...s.viewer, compareWith: 'b' } }));
    const aligning = showAligned('compared');
    await until(() => v().aligned?.loading === true);
    keepRunHandle('b', bHandle);
    setState((s) => ({ viewer: { ...s.viewer, runs: [s.viewer.runs[0]!, b] } }));
    await aligning;
    expect(v().aligned).toMatchObject({ error: null, data: { stepA: 1, stepB: 1, onlyA: 0, onlyB: 0 } });
  });

  it("puts the open step beside the live run's inspected step (a shipped lesson recording's records)", async () => {
    const name = 'all_tokens.rlvr.gz';
    const path = join(import.meta.dirname, '../../../public/records/lessons/forking-tokens/seed-11', name);
    const bytes = new Uint8Array(readFileSync(path));
    const handle = await openRun(memoryRunFiles('r', { [name]: bytes }), { path: name, name, format: 'record' });
    keepRunHandle('r', Object.assign(handle, { disposed: false, dispose: () => undefined }));
    const run = {
      key: 'r',
      name,
      format: 'record',
      origin: 'folder',
      opened: true,
      index: handle.index,
      loading: false,
    };
    setState({ viewer: { ...initialViewer, runs: [{ ...run, error: null } as ViewerRun] } });
    const step = handle.index.steps[1]!;
    await showRun('r', step);
    const { record } = await readRunRecord(bytes);
    const records = record.rollouts.filter((r) => r.step === step).flatMap((r) => r.records);
    setState((s) => ({ inspector: { ...s.inspector, step, data: { step, settings: {} as never, records } } }));
    await showAligned('live');
    const prompts = new Set(v().stepData!.groups.map((g) => g.prompt));
    expect(v().aligned).toMatchObject({ otherName: 'the live run', error: null });
    expect(v().aligned!.data).toMatchObject({ stepA: step, stepB: step, onlyA: 0, onlyB: 0 });
    expect(v().aligned!.data!.shared.map((p) => p.prompt)).toEqual([...prompts]);
  });

  it('says what is missing: no run compared, no live step inspected', async () => {
    setState({ viewer: { ...initialViewer, runs: [await entry('a', [1])] } });
    await showRun('a');
    await showAligned('compared');
    expect(v().aligned!.error).toMatch(/tick "compare with the open run"/);
    await showAligned('live');
    expect(v().aligned!.error).toMatch(/the live run has no step in its inspector yet/);
  });
});
