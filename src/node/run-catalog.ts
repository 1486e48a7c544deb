/**
 * The runs under the folders `rlvr view` serves, found again whenever they are asked for, so a run
 * written into a served folder while it serves appears, and a growing run's new steps are counted.
 * Detection runs only when a folder's listing changed (a file added, removed, grown or touched) and a
 * run's steps are counted again only when its own files changed, so asking often is cheap.
 */
import type { FoundRun, RunFiles, RunFormat } from '../runs/types.ts';
import { ServedFolder, type ServedFileEntry } from './served-folder.ts';

/** How runs are found and their steps counted: the readers of src/runs. */
export interface RunDetection {
  detectRuns(files: RunFiles): Promise<FoundRun[]>;
  /** Steps with rollouts of a run whose files are `files` (`found.path` relative to them). */
  countSteps(files: RunFiles, found: FoundRun): Promise<number>;
}

/** A run as served: its URL name and where its files are. */
export interface CatalogRun {
  /** Unique among the served runs and URL-safe: `/runs/<name>/…`. */
  name: string;
  format: RunFormat;
  steps: number;
  folder: ServedFolder;
  /** The run's folder under `folder`, as path segments ([] for the served folder itself). */
  segments: string[];
  /** For a run that is one file (a record): that file's name in the run's folder. */
  only?: string;
  /** The run as the readers see it through `files()`: path '' (a folder run) or `only`. */
  found: FoundRun;
  files(): RunFiles;
}

/** Letters, digits, `.`, `_` and `-` are kept; anything else becomes `_` (a name is one URL path segment). */
export const urlSafeName = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || 'run';

const signature = (files: readonly ServedFileEntry[]) => files.map((f) => `${f.path}\0${f.size}\0${f.mtimeMs}`).join('\n');

interface FolderState {
  signature: string;
  found: FoundRun[];
  files: ServedFileEntry[];
}

export class RunCatalog {
  private folderStates = new Map<ServedFolder, FolderState>();
  private stepCounts = new Map<string, { signature: string; steps: number }>();
  private pending: Promise<CatalogRun[]> | null = null;

  constructor(
    readonly folders: readonly ServedFolder[],
    private readonly detection: RunDetection,
  ) {}

  /** The runs now; concurrent callers share one look. */
  runs(): Promise<CatalogRun[]> {
    this.pending ??= this.look().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async look(): Promise<CatalogRun[]> {
    const located: Omit<CatalogRun, 'name' | 'steps'>[] = [];
    const parents: string[] = [];
    for (const folder of this.folders) {
      const files = await folder.list();
      const sig = signature(files);
      let state = this.folderStates.get(folder);
      if (!state || state.signature !== sig) {
        const found = await this.detection.detectRuns(folder.runFiles([], folder.name));
        state = { signature: sig, found, files };
        this.folderStates.set(folder, state);
      }
      for (const f of state.found) {
        const parts = f.path === '' ? [] : f.path.split('/');
        const isFile = state.files.some((e) => e.path === f.path);
        const segments = isFile ? parts.slice(0, -1) : parts;
        const only = isFile ? parts[parts.length - 1] : undefined;
        const runName = f.name || (segments.length ? segments[segments.length - 1]! : folder.name);
        const found: FoundRun = { path: only ?? '', name: runName, format: f.format };
        located.push({ format: f.format, folder, segments, only, found, files: () => folder.runFiles(segments, runName, only) });
        parents.push(segments.length ? (segments[segments.length - 2] ?? folder.name) : folder.name);
      }
    }
    const names = uniqueNames(located.map((r) => r.found.name), parents);
    const out: CatalogRun[] = [];
    for (const [i, r] of located.entries()) {
      out.push({ ...r, name: names[i]!, steps: await this.countSteps(r) });
    }
    return out;
  }

  private async countSteps(r: Omit<CatalogRun, 'name' | 'steps'>): Promise<number> {
    const key = `${r.folder.root}\0${r.segments.join('/')}\0${r.only ?? ''}\0${r.format}`;
    const files = (await r.folder.list(r.segments)).filter((f) => r.only === undefined || f.path === r.only);
    const sig = signature(files);
    const cached = this.stepCounts.get(key);
    if (cached && cached.signature === sig) return cached.steps;
    let steps = 0;
    try {
      steps = await this.detection.countSteps(r.files(), r.found);
    } catch {
      // A run that cannot be opened is still listed (with 0 steps): the page opens it and shows why.
    }
    this.stepCounts.set(key, { signature: sig, steps });
    return steps;
  }
}

/**
 * URL-safe names, unique: a run's own name, or where two clash, its parent folder's name before it
 * (`parent-name`), then a number after it.
 */
export function uniqueNames(names: readonly string[], parents: readonly string[]): string[] {
  const base = names.map(urlSafeName);
  const count = (list: string[], n: string) => list.filter((x) => x === n).length;
  const withParent = base.map((n, i) => (count(base, n) > 1 ? `${urlSafeName(parents[i] ?? '')}-${n}` : n));
  const used = new Set<string>();
  return withParent.map((n) => {
    let name = n;
    for (let k = 2; used.has(name); k++) name = `${n}-${k}`;
    used.add(name);
    return name;
  });
}
