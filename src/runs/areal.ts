/**
 * AReaL's trajectory dump, as areal/infra/workflow_executor.py `_dump_trajectory` writes it: under the
 * experiment's log path, `rollout/` (and `eval-rollout/`) holds a folder per policy version (the largest
 * version the trajectory was generated with), and in it `{task_id}.jsonl`, appended a line per sample:
 *   json.dumps({"task_id", "sample_idx", "seqlen", "prompt_len", "head_version", "tail_version",
 *               "reward", "prompt", "completion"})
 * (bare NaN/Infinity possible). The version is the step; one task's samples are one group; the
 * completion's length in tokens is seqlen − prompt_len.
 */
import { isRecord, toNumber } from './files.ts';
import type { LineRow, StepLinesFormat } from './step-lines.ts';

/** A file under a rollout folder: `{version}/{task_id}.jsonl`. */
export const arealTaskFile = /^(\d+)\/(\d+)\.jsonl$/;
/** A rollout folder and file under any root, for detection. */
export const arealDumpFile = /^(?:(.*)\/)?((?:eval-)?rollout)\/(\d+)\/(\d+)\.jsonl$/;

/** Whether a parsed first line looks like AReaL's dump. */
export const isArealLine = (v: Record<string, unknown> | null): boolean =>
  v !== null && 'task_id' in v && 'completion' in v && 'reward' in v && 'prompt_len' in v;

const expected =
  'expected AReaL\'s {"task_id", "sample_idx", "seqlen", "prompt_len", "head_version", "tail_version", "reward", ' +
  '"prompt", "completion"} (areal/infra/workflow_executor.py)';

export function arealFormat(): StepLinesFormat {
  return {
    format: 'areal',
    stepOf(path) {
      const m = arealTaskFile.exec(path);
      return m ? { step: Number(m[1]), order: Number(m[2]) } : null;
    },
    rewardNamesOf: () => ['reward'],
    rowsOf(v): LineRow[] | string {
      if (!isRecord(v) || typeof v.prompt !== 'string' || typeof v.completion !== 'string')
        return `not an object with "prompt" and "completion" text; ${expected}`;
      const reward = toNumber(v.reward);
      if (reward === undefined) return `"reward" is ${JSON.stringify(v.reward ?? null)}, not a number; ${expected}`;
      const seqlen = toNumber(v.seqlen);
      const promptLen = toNumber(v.prompt_len);
      const tokens = seqlen !== undefined && promptLen !== undefined;
      const { prompt, completion, reward: _r, ...rest } = v;
      return [
        {
          group: String(v.task_id),
          completion: {
            prompt,
            completion,
            rewards: { reward },
            reward,
            length: tokens ? seqlen - promptLen : completion.length,
            lengthUnit: tokens ? 'tokens' : 'chars',
            extra: rest,
          },
        },
      ];
    },
    notes: [
      "AReaL: the step is the policy version (the folder's name); each task's samples are a group; AReaL " +
        'logs no advantages.',
    ],
  };
}
