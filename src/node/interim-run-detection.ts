/**
 * INTERIM: finds runs by their file names only, until the readers of src/runs (detectRuns, openRun)
 * are merged and replace this file. TRL: `completions/completions_<step>.parquet` (the run is the
 * folder above `completions/`); veRL: `<global_step>.jsonl` files; the playground's record: a
 * `.rlvr.gz` file. Steps are counted as step files (a record's as 0: reading it is the readers' job).
 */
import type { FoundRun, RunFiles } from '../runs/types.ts';
import type { RunDetection } from './run-catalog.ts';

const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
const nameOf = (path: string, fallback: string) => (path === '' ? fallback : path.slice(path.lastIndexOf('/') + 1));

function classify(path: string): { run: string; format: FoundRun['format']; isFile?: boolean } | null {
  const trl = /^(?:(.*)\/)?completions\/completions_\d+\.parquet$/.exec(path);
  if (trl) return { run: trl[1] ?? '', format: 'trl' };
  if (/^(?:.*\/)?\d+\.jsonl$/.test(path)) return { run: dirOf(path), format: 'verl' };
  if (path.endsWith('.rlvr.gz')) return { run: path, format: 'record', isFile: true };
  return null;
}

export const interimRunDetection: RunDetection = {
  async detectRuns(files: RunFiles): Promise<FoundRun[]> {
    const runs = new Map<string, FoundRun>();
    for (const f of await files.list()) {
      const c = classify(f.path);
      if (c && !runs.has(c.run)) runs.set(c.run, { path: c.run, name: nameOf(c.run, files.name), format: c.format });
    }
    return [...runs.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  },
  async countSteps(files: RunFiles, found: FoundRun): Promise<number> {
    if (found.format === 'record') return 0;
    const list = await files.list();
    return list.filter((f) => {
      const c = classify(f.path);
      return c !== null && c.format === found.format && c.run === found.path;
    }).length;
  },
};
