/**
 * TRL's trainer state (`trainer_state.json`, in `checkpoint-N/` or at the top of an output_dir), as
 * transformers' Trainer writes it: the curves are its `log_history`, one entry per logging step (several may
 * share a step), and the reward functions' names come from its `rewards/NAME/mean` keys. trl.ts reads the
 * completions; this file, the curves.
 */
import { isRecord, parsePythonJson, readRange, utf8, why } from './files.ts';
import type { MetricPoint, RunFileEntry, RunFiles, RunProblem } from './types.ts';

/** log_history as curve points: every entry with a step, every numeric key, entries of one step merged. */
export function logHistoryPoints(history: unknown[]): MetricPoint[] {
  const byStep = new Map<number, Record<string, number>>();
  for (const entry of history) {
    if (!isRecord(entry) || typeof entry.step !== 'number') continue;
    const values = byStep.get(entry.step) ?? {};
    for (const [k, v] of Object.entries(entry)) if (k !== 'step' && typeof v === 'number') values[k] = v;
    byStep.set(entry.step, values);
  }
  return [...byStep.entries()].sort((a, b) => a[0] - b[0]).map(([step, values]) => ({ step, values }));
}

export interface TrainerState {
  path: string;
  size: number;
  globalStep: number;
  points: MetricPoint[];
  rewardNames: string[];
}

export async function readTrainerState(
  files: RunFiles,
  entry: RunFileEntry,
  problems: RunProblem[],
): Promise<TrainerState | null> {
  let text: string | null;
  try {
    text = utf8(await readRange(files, entry.path));
  } catch (e) {
    problems.push({ file: entry.path, message: why(e) });
    return null;
  }
  let json: unknown;
  try {
    if (text === null) throw new Error('it is not UTF-8 text');
    json = parsePythonJson(text);
  } catch (e) {
    problems.push({
      file: entry.path,
      message: `${entry.path}: not readable JSON (${why(e)}); expected TRL's trainer state with log_history`,
    });
    return null;
  }
  if (!isRecord(json) || !Array.isArray(json.log_history)) {
    problems.push({
      file: entry.path,
      message: `${entry.path}: has no log_history list; expected TRL's trainer state`,
    });
    return null;
  }
  const points = logHistoryPoints(json.log_history);
  const rewardNames: string[] = [];
  for (const p of points) {
    for (const k of Object.keys(p.values)) {
      const m = /^rewards\/(.+)\/mean$/.exec(k);
      if (m && !rewardNames.includes(m[1]!)) rewardNames.push(m[1]!);
    }
  }
  const globalStep = typeof json.global_step === 'number' ? json.global_step : (points[points.length - 1]?.step ?? 0);
  return { path: entry.path, size: entry.size, globalStep, points, rewardNames };
}
