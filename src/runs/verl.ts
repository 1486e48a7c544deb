/**
 * veRL's `trainer.rollout_data_dir`, as verl/trainer/ppo/ray_trainer.py `_dump_generations` writes it:
 * one `{global_step}.jsonl` per step (steps from 1), each line `json.dumps({"input", "output", "gts",
 * "score", "step", ...every per-sample reward field})` with ensure_ascii=False (bare NaN/Infinity possible),
 * lines "\n"-joined with a final newline. The samples of one prompt are consecutive (the batch is repeated
 * interleaved), so a group is consecutive lines sharing `input`. Older veRL wrote no `gts`.
 *
 * Indexing lists the files only (the step is the file's name) and peeks at the first line of one file for
 * the reward fields; a step's file is scanned in chunks when the step is read, and the problems found
 * there join the index's. A search reads the step files ahead, many to a request (whole-files.ts).
 */
import { isRecord, RunReadError, readRange, toNumber } from './files.ts';
import { firstJsonLine, scanJsonLines } from './lines.ts';
import { missingSteps, type RunSource, type StepRows } from './opened-run.ts';
import type { RawTextFilter } from './raw-prefilter.ts';
import { WHOLE_FILE_BYTES, wholeFiles } from './whole-files.ts';
import type { RunCompletion, RunFiles, RunIndex, RunProblem } from './types.ts';

export const verlStepFile = /^(\d+)\.jsonl$/;
const coreFields = new Set(['input', 'output', 'step']);

/** Whether a parsed first line looks like veRL's dump. */
export const isVerlLine = (v: Record<string, unknown> | null): boolean =>
  v !== null && 'input' in v && 'output' in v && ('score' in v || 'step' in v);

/** The reward fields of a line: `score`, then every other numeric field (veRL's reward_extra_infos) but `step`. */
function rewardFields(line: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  if ('score' in line) out.score = toNumber(line.score) ?? Number.NaN;
  for (const [k, v] of Object.entries(line))
    if (!coreFields.has(k) && k !== 'score' && (typeof v === 'number' || typeof v === 'boolean')) out[k] = toNumber(v)!;
  return out;
}

export function verlSource(files: RunFiles, name: string): RunSource {
  const byStep = new Map<number, { path: string; size: number }>();
  const rewardNames: string[] = [];
  let peeked = false;
  const whole = wholeFiles(files);

  async function index(): Promise<RunIndex> {
    const problems: RunProblem[] = [];
    const found = (await files.list())
      .filter((f) => verlStepFile.test(f.path))
      .sort((a, b) => a.path.length - b.path.length || a.path.localeCompare(b.path));
    byStep.clear();
    for (const f of found) {
      const step = Number(verlStepFile.exec(f.path)![1]);
      const other = byStep.get(step);
      if (other) {
        problems.push({
          file: f.path,
          message: `${f.path}: step ${step} again (${other.path} has it too); ${other.path} was read, this one skipped`,
        });
        continue;
      }
      byStep.set(step, { path: f.path, size: f.size });
    }
    const steps = [...byStep.keys()].sort((a, b) => a - b);
    for (const s of missingSteps(steps))
      problems.push({
        file: `${s}.jsonl`,
        message: `${s}.jsonl is missing: no rollouts for step ${s}, between the steps before and after it`,
      });
    if (!peeked && steps.length) {
      const first = byStep.get(steps[0]!)!;
      try {
        const line = await firstJsonLine(files, first.path, first.size);
        if (line) for (const k of Object.keys(rewardFields(line))) if (!rewardNames.includes(k)) rewardNames.push(k);
        peeked = true;
      } catch (e) {
        problems.push({ file: first.path, message: e instanceof Error ? e.message : String(e) });
      }
    }
    const notes = [
      'veRL: the total reward is `score` (token_level_scores summed); every other numeric field is shown beside it.',
    ];
    return { name, format: 'verl', steps, metrics: [], rewardNames, problems, notes };
  }

  async function readRows(step: number, filter?: RawTextFilter): Promise<StepRows> {
    const file = byStep.get(step);
    if (!file) throw new RunReadError(name, `${name}: no ${step}.jsonl`);
    const problems: RunProblem[] = [];
    const rows: RunCompletion[] = [];
    let stepFiles = await whole.files(file.path);
    if (filter && file.size <= WHOLE_FILE_BYTES) {
      // `input` and `output` must be JSON strings (below), which is what makes the raw test safe
      // (raw-prefilter.ts); the bytes tested are the bytes then scanned.
      const bytes = await readRange(stepFiles, file.path, 0, file.size);
      if (!filter.mayMatch(bytes)) return { rows, problems };
      const listed = stepFiles;
      stepFiles = {
        name: listed.name,
        list: () => listed.list(),
        read: async (_path, start, end) => bytes.subarray(start ?? 0, end ?? bytes.length),
      };
    }
    await scanJsonLines(
      stepFiles,
      file.path,
      { end: file.size },
      ({ line, value }) => {
        if (!isRecord(value) || typeof value.input !== 'string' || typeof value.output !== 'string') {
          problems.push({
            file: file.path,
            line,
            message:
              `${file.path} line ${line}: expected an object with "input" and "output" text and a ` +
              `"score", as veRL writes`,
          });
          return;
        }
        if (typeof value.step === 'number' && value.step !== step) {
          problems.push({
            file: file.path,
            line,
            message:
              `${file.path} line ${line}: its "step" is ${value.step} but the file is step ${step}; read ` +
              `as step ${step}`,
          });
        }
        const rewards = rewardFields(value);
        for (const k of Object.keys(rewards)) if (!rewardNames.includes(k)) rewardNames.push(k);
        const extra: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value)) if (!coreFields.has(k) && !(k in rewards)) extra[k] = v;
        const reward = rewards.score ?? Object.values(rewards).reduce((a, b) => a + b, 0);
        rows.push({
          row: rows.length,
          prompt: value.input,
          completion: value.output,
          rewards,
          reward,
          length: value.output.length,
          lengthUnit: 'chars',
          extra,
        });
      },
      (p) => problems.push(p),
    );
    // An unterminated last line that is not whole JSON is left out without a problem: veRL writes a step's
    // file in one write, so such a line is one still being written; the next read has it.
    return { rows, problems };
  }

  const prefetch = (steps: number[]): void =>
    whole.prefetch(steps.map((s) => byStep.get(s)).filter((f): f is { path: string; size: number } => !!f));

  return { index, readRows, prefetch };
}
