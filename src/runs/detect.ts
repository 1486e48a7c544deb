/**
 * Finds every run under a root by its files and their content, the way `tensorboard --logdir` finds
 * event files in sub-folders, and opens one. A run is:
 *   - trl: a folder with `completions/completions_*.parquet` (TRL's output_dir);
 *   - verl: a folder of `{step}.jsonl` files whose first line has veRL's `input` and `output`;
 *   - jsonl: a `*.jsonl` file whose first line has `step`, `prompt`, `completion` and `rewards`;
 *   - record: a `*.rlvr.gz` file (it may sit inside a TRL output_dir: the recording trainer writes it there);
 *   - nemo-rl, prime-rl, roll, areal: a folder of that framework's step files, by their names (step-formats.ts);
 *   - trackio: a `*.db` SQLite file with Trackio's `traces` table.
 * Folders and files whose name starts with '.' are passed over (caches, editors' files).
 */
import { baseOf, dirOf, RunReadError, subRunFiles, why } from './files.ts';
import { isDocumentedLine, jsonlSource } from './jsonl.ts';
import { firstJsonLine } from './lines.ts';
import { openSource, type OpenOptions } from './opened-run.ts';
import { recordSource } from './record.ts';
import { frameworkRunsOf, openFrameworkRun } from './step-formats.ts';
import { trlCompletionFile, trlSource } from './trl.ts';
import type { FoundRun, OpenedRun, RunFileEntry, RunFiles, RunProblem } from './types.ts';
import { isVerlLine, verlSource, verlStepFile } from './verl.ts';

const looked =
  "looked for TRL's completions/completions_*.parquet, veRL's {step}.jsonl files, a .jsonl file whose first line has " +
  'step, prompt, completion and rewards (docs/run-formats.md), *.rlvr.gz run records, ' +
  "NeMo-RL's train_data_step{N}.jsonl, prime-rl's rollouts/step_N/, ROLL's rollout_dump_data.step_N.jsonl, " +
  "AReaL's rollout/{version}/{task_id}.jsonl and Trackio's {project}.db";

const hidden = (path: string) => path.split('/').some((part) => part.startsWith('.'));

/** The run's name: its path under the root, or the root's own name for the root itself. */
const runName = (files: RunFiles, path: string) => (path === '' ? files.name : path);

async function peek(files: RunFiles, f: RunFileEntry, problems: RunProblem[]): Promise<Record<string, unknown> | null> {
  try {
    return await firstJsonLine(files, f.path, f.size);
  } catch (e) {
    problems.push({ file: f.path, message: e instanceof RunReadError ? e.message : `${f.path}: ${why(e)}` });
    return null;
  }
}

/** Every run under the root, and what was seen but not taken. */
export async function detectRuns(files: RunFiles): Promise<{ runs: FoundRun[]; problems: RunProblem[] }> {
  const problems: RunProblem[] = [];
  let listed: RunFileEntry[];
  try {
    listed = (await files.list()).filter((f) => !hidden(f.path));
  } catch (e) {
    return {
      runs: [],
      problems: [{ file: files.name, message: `${files.name}: the folder could not be listed (${why(e)})` }],
    };
  }
  const trlDirs = new Set<string>();
  const verlCandidates = new Map<string, RunFileEntry[]>();
  const jsonlFiles: RunFileEntry[] = [];
  const records: RunFileEntry[] = [];
  const framework = await frameworkRunsOf(files, listed, problems);
  for (const f of listed) {
    if (framework.taken.has(f.path)) continue;
    const dir = dirOf(f.path);
    const m = /^(?:(.*)\/)?completions\/completions_\d+\.parquet$/.exec(f.path);
    if (m && trlCompletionFile.test(`completions/${baseOf(f.path)}`)) trlDirs.add(m[1] ?? '');
    else if (verlStepFile.test(baseOf(f.path))) verlCandidates.set(dir, [...(verlCandidates.get(dir) ?? []), f]);
    else if (f.path.endsWith('.jsonl')) jsonlFiles.push(f);
    else if (f.path.endsWith('.rlvr.gz')) records.push(f);
  }
  const runs: FoundRun[] = [];
  for (const dir of [...trlDirs].sort()) runs.push({ path: dir, name: runName(files, dir), format: 'trl' });
  for (const [dir, stepFiles] of [...verlCandidates.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    stepFiles.sort(
      (a, b) => Number(verlStepFile.exec(baseOf(a.path))![1]) - Number(verlStepFile.exec(baseOf(b.path))![1]),
    );
    const first = stepFiles[0]!;
    const line = await peek(files, first, problems);
    if (isVerlLine(line)) {
      if (trlDirs.has(dir)) {
        problems.push({
          file: first.path,
          message:
            `${first.path}: ${runName(files, dir)} holds two formats, TRL's completions/ and veRL's ` +
            `{step}.jsonl files ` +
            `(${stepFiles.length}); read as TRL, the veRL files skipped. Open each in a folder of its own.`,
        });
      } else runs.push({ path: dir, name: runName(files, dir), format: 'verl' });
    } else if (isDocumentedLine(line)) {
      jsonlFiles.push(...stepFiles);
    } else if (line !== null || !problems.some((p) => p.file === first.path)) {
      problems.push({
        file: first.path,
        message:
          `${first.path}: named like a veRL step file, but its first line has no "input" and "output" ` +
          `(nor the documented step, prompt, completion, rewards); skipped`,
      });
    }
  }
  for (const f of jsonlFiles.sort((a, b) => a.path.localeCompare(b.path))) {
    const line = await peek(files, f, problems);
    if (isDocumentedLine(line)) {
      if (trlDirs.has(dirOf(f.path)) || runs.some((r) => r.format === 'verl' && r.path === dirOf(f.path))) {
        const other = trlDirs.has(dirOf(f.path)) ? 'TRL' : 'veRL';
        problems.push({
          file: f.path,
          message:
            `${f.path}: a documented JSONL run in the same folder as a ${other} run; both are listed, as ` +
            `separate runs`,
        });
      }
      runs.push({ path: f.path, name: runName(files, f.path), format: 'jsonl' });
    } else if (!problems.some((p) => p.file === f.path)) {
      const keys = line ? Object.keys(line).slice(0, 8).join(', ') : 'no JSON object';
      problems.push({
        file: f.path,
        message:
          `${f.path}: not a run: its first line has ${keys}; expected step, prompt, completion and ` +
          `rewards (docs/run-formats.md) or veRL's input and output`,
      });
    }
  }
  for (const f of records.sort((a, b) => a.path.localeCompare(b.path)))
    runs.push({ path: f.path, name: runName(files, f.path), format: 'record' });
  for (const r of framework.runs) runs.push({ ...r, name: runName(files, r.path) });
  if (runs.length === 0) problems.push({ file: files.name, message: `${files.name}: no run found; ${looked}` });
  return { runs, problems };
}

/**
 * Opens a run that detectRuns found; throws RunReadError only when its files cannot be listed at all.
 * `options.firstStep`: the step the page shows first, read as soon as the index is (opened-run.ts).
 */
export async function openRun(files: RunFiles, found: FoundRun, options: OpenOptions = {}): Promise<OpenedRun> {
  try {
    switch (found.format) {
      case 'trl':
        return await openSource(trlSource(subRunFiles(files, found.path), found.name, options.firstStep), options);
      case 'verl':
        return await openSource(verlSource(subRunFiles(files, found.path), found.name), options);
      case 'jsonl':
        return await openSource(
          jsonlSource(subRunFiles(files, dirOf(found.path)), baseOf(found.path), found.name),
          options,
        );
      case 'record':
        return await openSource(recordSource(files, found.path, found.name), options);
      default:
        return await openSource(await openFrameworkRun(files, found), options);
    }
  } catch (e) {
    if (e instanceof RunReadError) throw e;
    throw new RunReadError(found.path || files.name, `${found.name}: could not be opened (${why(e)})`);
  }
}

/** Detects and opens every run under a root (convenience for the CLI and tests). */
export async function openAllRuns(files: RunFiles): Promise<{ runs: OpenedRun[]; problems: RunProblem[] }> {
  const { runs, problems } = await detectRuns(files);
  const opened: OpenedRun[] = [];
  for (const r of runs) {
    try {
      opened.push(await openRun(files, r));
    } catch (e) {
      problems.push({ file: e instanceof RunReadError ? e.file : r.path, message: why(e) });
    }
  }
  return { runs: opened, problems };
}
