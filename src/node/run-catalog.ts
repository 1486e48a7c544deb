/**
 * The runs under the folders `rlvr view` serves, found again whenever they are asked for, so a run
 * written into a served folder while it serves appears, and a growing run's new steps are counted.
 * Runs are found again only when a folder's listing changed (a file added, removed, grown or touched),
 * and an opened run is refreshed (the readers read only what is new) only when its own files changed,
 * so asking often is cheap.
 */
import type { FoundRun, OpenedRun, RunFileEntry, RunFiles, RunFormat, RunIndex, RunProblem } from '../runs/types.ts';
import type { ServedFolder, ServedFileEntry } from './served-folder.ts';

/** How runs are found and opened: the readers of src/runs (src/runs/detect.ts), or a stand-in in tests. */
export interface RunReaders {
  detectRuns(files: RunFiles): Promise<{ runs: FoundRun[]; problems: RunProblem[] }>;
  openRun(files: RunFiles, found: FoundRun): Promise<OpenedRun>;
}

/** A run as served: its URL name and where its files are. */
export interface CatalogRun {
  /** Unique among the served runs and URL-safe: `/runs/<name>/…`. */
  name: string;
  format: RunFormat;
  steps: number;
  /**
   * What its readers could not read (runs.json's `errors`): each problem of its index as a sentence
   * naming the file, or why it could not be opened at all; at most MAX_ERRORS, then how many more.
   */
  errors: string[];
  folder: ServedFolder;
  /** The run's folder under `folder`, as path segments ([] for the served folder itself). */
  segments: string[];
  /** For a run that is one file (a record): that file's name in the run's folder. */
  only?: string;
  /** The run as the readers see it through `files()` (its folder's files): path '' or, for a one-file run, `only`. */
  found: FoundRun;
  files(): RunFiles;
  /** The run's files as `files().list()` gave them at the last look (a server search's workers start from it). */
  listing(): RunFileEntry[];
}

/** Letters, digits, `.`, `_` and `-` are kept; anything else becomes `_` (a name is one URL path segment). */
export const urlSafeName = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || 'run';

const signature = (files: readonly ServedFileEntry[]) =>
  files.map((f) => `${f.path}\0${f.size}\0${f.mtimeMs}`).join('\n');

interface FolderState {
  signature: string;
  found: FoundRun[];
  problems: RunProblem[];
  files: ServedFileEntry[];
}

/** An opened run, the signature of its files when its index was last read, and its step count and errors then. */
interface OpenState {
  signature: string;
  run: OpenedRun | null;
  steps: number;
  errors: string[];
}

/** How many of a run's problems runs.json lists by name (a dump with a broken line a step could have thousands). */
export const MAX_ERRORS = 20;

/** A problem as one sentence that names its file (the readers' messages mostly do already). */
export function problemSentence(p: RunProblem): string {
  if (p.message.startsWith(p.file)) return p.message;
  const at = p.line !== undefined ? ` line ${p.line}` : p.row !== undefined ? ` row ${p.row}` : '';
  return `${p.file}${at}: ${p.message}`;
}

/** A run's problems as runs.json lists them. */
export function errorsOf(problems: RunProblem[]): string[] {
  const listed = problems.slice(0, MAX_ERRORS).map(problemSentence);
  if (problems.length > MAX_ERRORS) listed.push(`and ${problems.length - MAX_ERRORS} more problems`);
  return listed;
}

export class RunCatalog {
  private folderStates = new Map<ServedFolder, FolderState>();
  private opened = new Map<string, OpenState>();
  private pending: Promise<CatalogRun[]> | null = null;
  private last: CatalogRun[] | null = null;

  constructor(
    readonly folders: readonly ServedFolder[],
    private readonly readers: RunReaders,
  ) {}

  /** What the last look at each folder passed over or could not read (the readers' words). */
  problems(): RunProblem[] {
    return this.folders.flatMap((f) => this.folderStates.get(f)?.problems ?? []);
  }

  /** The runs now; concurrent callers share one look. */
  runs(): Promise<CatalogRun[]> {
    this.pending ??= this.look()
      .then((runs) => (this.last = runs))
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  /**
   * The run of that name as last listed, looking again only when there is none: a run's files are
   * read many times (a Range request each), and a look walks every served folder.
   */
  async named(name: string): Promise<CatalogRun | undefined> {
    return this.last?.find((r) => r.name === name) ?? (await this.runs()).find((r) => r.name === name);
  }

  /** The steps of a listed run as its opened index has them (its last refresh), or null when it could not be opened. */
  steps(run: CatalogRun): number[] | null {
    return this.opened.get(openKey(run))?.run?.index.steps ?? null;
  }

  /** A listed run's opened index (its last refresh: curves, steps, reward names); null where it could not be opened. */
  index(run: CatalogRun): RunIndex | null {
    return this.opened.get(openKey(run))?.run?.index ?? null;
  }

  private async look(): Promise<CatalogRun[]> {
    const located: (Omit<CatalogRun, 'name' | 'steps' | 'errors'> & { listed: ServedFileEntry[] })[] = [];
    const parents: string[] = [];
    for (const folder of this.folders) {
      const files = await folder.list();
      const sig = signature(files);
      let state = this.folderStates.get(folder);
      if (!state || state.signature !== sig) {
        const { runs: found, problems } = await this.readers.detectRuns(folder.runFiles([], folder.name));
        state = { signature: sig, found, problems, files };
        this.folderStates.set(folder, state);
      }
      for (const f of state.found) {
        const parts = f.path === '' ? [] : f.path.split('/');
        const isFile = state.files.some((e) => e.path === f.path);
        const segments = isFile ? parts.slice(0, -1) : parts;
        const only = isFile ? parts[parts.length - 1] : undefined;
        // The readers name a run by its path under the folder; a URL name is its own folder's (or file's) name.
        const runName = parts.length ? parts[parts.length - 1]! : folder.name;
        const found: FoundRun = { path: only ?? '', name: runName, format: f.format };
        const files = () => folder.runFiles(segments, runName, only);
        // The run's own files, from the folder's listing (one walk of the folder per look).
        const prefix = segments.length ? `${segments.join('/')}/` : '';
        const listed = state.files.filter((e) => (only === undefined ? e.path.startsWith(prefix) : e.path === f.path));
        // In the order of the folder's walk, as files().list() gives them.
        const listing = () => listed.map((e) => ({ path: only ?? e.path.slice(prefix.length), size: e.size }));
        located.push({ format: f.format, folder, segments, only, found, files, listing, listed });
        parents.push(segments.length ? (segments[segments.length - 2] ?? folder.name) : folder.name);
      }
    }
    const names = uniqueNames(
      located.map((r) => r.found.name),
      parents,
    );
    const out: CatalogRun[] = [];
    for (const [i, { listed, ...r }] of located.entries()) {
      out.push({ ...r, name: names[i]!, ...(await this.countSteps(r, listed)) });
    }
    return out;
  }

  private async countSteps(
    r: Omit<CatalogRun, 'name' | 'steps' | 'errors'>,
    listed: ServedFileEntry[],
  ): Promise<{ steps: number; errors: string[] }> {
    const key = openKey(r);
    const sig = signature(listed);
    const state = this.opened.get(key);
    if (state && state.signature === sig) return { steps: state.steps, errors: state.errors };
    let run = state?.run ?? null;
    let steps = 0;
    let errors: string[];
    try {
      const index = run ? await run.refresh() : (run = await this.readers.openRun(r.files(), r.found)).index;
      steps = index.steps.length;
      errors = errorsOf(index.problems);
    } catch (e) {
      // A run that cannot be opened is still listed (with 0 steps, tried again when its files change), with
      // why: the page opens it and shows the same.
      run = null;
      errors = [e instanceof Error ? e.message : String(e)];
    }
    this.opened.set(key, { signature: sig, run, steps, errors });
    return { steps, errors };
  }
}

const openKey = (r: Omit<CatalogRun, 'name' | 'steps' | 'errors'>) =>
  `${r.folder.root}\0${r.segments.join('/')}\0${r.only ?? ''}\0${r.format}`;

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
