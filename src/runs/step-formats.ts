/**
 * Detection and opening of the frameworks' dumps read through step-lines.ts (NeMo-RL, prime-rl, ROLL,
 * AReaL) and of Trackio's project database (trackio.ts). Each is found by its files' names, which no
 * other format uses; AReaL's `rollout/{version}/{task_id}.jsonl` is also veRL's `{step}.jsonl` by name,
 * so its first line decides, and a folder that is not AReaL's is left to the veRL check (detect.ts).
 */
import { arealDumpFile, arealFormat, isArealLine } from './areal.ts';
import { baseOf, dirOf, joinPath, RunReadError, subRunFiles, why } from './files.ts';
import { firstJsonLine } from './lines.ts';
import { nemoRlFormat, nemoRlStepFile } from './nemo-rl.ts';
import type { RunSource } from './opened-run.ts';
import { primeRlFormat, primeRlTraceFile } from './prime-rl.ts';
import { rollFormat, rollStepFile } from './roll.ts';
import { stepLinesSource } from './step-lines.ts';
import { folderTokenText } from './token-pieces.ts';
import { isTrackioFile, trackioSource } from './trackio.ts';
import type { FoundRun, RunFileEntry, RunFiles, RunFormat, RunProblem } from './types.ts';

export interface FrameworkRuns {
  runs: { path: string; format: RunFormat }[];
  /** The files these runs own: detect.ts looks at the others. */
  taken: Set<string>;
}

export async function frameworkRunsOf(
  files: RunFiles,
  listed: RunFileEntry[],
  problems: RunProblem[],
): Promise<FrameworkRuns> {
  const found = new Map<string, RunFormat>();
  const taken = new Set<string>();
  const areal = new Map<string, RunFileEntry[]>();
  for (const f of listed) {
    const base = baseOf(f.path);
    const prime = primeRlTraceFile.exec(f.path);
    const a = arealDumpFile.exec(f.path);
    if (nemoRlStepFile.test(base)) found.set(dirOf(f.path), 'nemo-rl');
    else if (rollStepFile.test(base)) found.set(dirOf(f.path), 'roll');
    else if (prime) found.set(prime[1] ?? '', 'prime-rl');
    else if (a) {
      const dir = joinPath(a[1] ?? '', a[2]!);
      areal.set(dir, [...(areal.get(dir) ?? []), f]);
      continue;
    } else if (f.path.endsWith('.db') && (await isTrackioFile(files, f, problems))) found.set(f.path, 'trackio');
    else continue;
    taken.add(f.path);
  }
  for (const [dir, dumped] of areal) {
    const first = dumped.sort((x, y) => x.path.localeCompare(y.path))[0]!;
    let line: Record<string, unknown> | null = null;
    try {
      line = await firstJsonLine(files, first.path, first.size);
    } catch (e) {
      problems.push({ file: first.path, message: why(e) });
    }
    if (!isArealLine(line)) continue; // veRL's {step}.jsonl in a folder of that name, or neither: detect.ts says
    found.set(dir, 'areal');
    for (const f of dumped) taken.add(f.path);
  }
  // prime-rl's metrics.jsonl beside rollouts/ is the run's curves, not a run of its own.
  for (const [dir, format] of found) if (format === 'prime-rl') taken.add(joinPath(dir, 'metrics.jsonl'));
  const runs = [...found.entries()]
    .map(([path, format]) => ({ path, format }))
    .sort((x, y) => x.format.localeCompare(y.format) || x.path.localeCompare(y.path));
  return { runs, taken };
}

/** The source of a run frameworkRunsOf found. */
export async function openFrameworkRun(files: RunFiles, found: FoundRun): Promise<RunSource> {
  if (found.format === 'trackio') return trackioSource(files, found.path, found.name);
  const folder = subRunFiles(files, found.path);
  const problems: RunProblem[] = [];
  switch (found.format) {
    case 'nemo-rl':
    case 'prime-rl': {
      const text = await folderTokenText(folder, problems);
      const format = found.format === 'nemo-rl' ? nemoRlFormat(text) : primeRlFormat(text);
      return stepLinesSource(folder, found.name, { ...format, problems });
    }
    case 'roll':
      return stepLinesSource(folder, found.name, rollFormat());
    case 'areal':
      return stepLinesSource(folder, found.name, arealFormat());
    default:
      throw new RunReadError(found.path, `${found.name}: no reader for the format ${found.format}`);
  }
}
