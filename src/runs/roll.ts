/**
 * ROLL's rollout dump, as roll/pipeline/rlvr/utils.py `write_to_json_process` writes it: one
 * `rollout_dump_data.step_{global_step}.jsonl` per step in `rollout_dump_dir`, holding ONE line,
 * `json.dumps(data, ensure_ascii=False)` of a dict of columns (COLUMMNS_CONFIG's names that the batch
 * has): `prompt`, `messages`, `id`, `source`, `tag`, `domain`, `ground_truth`, ... one value per sample,
 * then `responses` (the decoded responses), `scores` (each sample's score), `sampling_params` and
 * `global_step`. Row i is every column's i-th value. Samples of one prompt are consecutive (ROLL repeats
 * each prompt num_return_sequences times), so groups are found by prompt.
 */
import { asText, isRecord, toNumber } from './files.ts';
import type { LineRow, StepLinesFormat } from './step-lines.ts';

export const rollStepFile = /^rollout_dump_data\.step_(\d+)\.jsonl$/;

/** Whether a parsed first line looks like ROLL's dump (columns of equal length). */
export const isRollLine = (v: Record<string, unknown> | null): boolean =>
  v !== null && Array.isArray(v.responses) && Array.isArray(v.scores);

const expected =
  'expected ROLL\'s one line of columns {"prompt": [...], "responses": [...], "scores": [...], ...} ' +
  '(roll/pipeline/rlvr/utils.py)';
const known = new Set(['prompt', 'messages', 'responses', 'scores', 'global_step']);

export function rollFormat(): StepLinesFormat {
  return {
    format: 'roll',
    stepOf(path) {
      const m = rollStepFile.exec(path);
      return m ? { step: Number(m[1]), order: 0 } : null;
    },
    rewardNamesOf: () => ['score'],
    rowsOf(value): LineRow[] | string {
      if (!isRecord(value) || !Array.isArray(value.responses) || !Array.isArray(value.scores))
        return `not an object of columns with "responses" and "scores"; ${expected}`;
      const n = value.responses.length;
      const columns = Object.entries(value).filter(([, v]) => Array.isArray(v)) as [string, unknown[]][];
      const uneven = columns.find(([, v]) => v.length !== n);
      if (uneven) return `column "${uneven[0]}" has ${uneven[1].length} values but "responses" has ${n}; ${expected}`;
      const prompts = (value.prompt ?? value.messages) as unknown[] | undefined;
      const rows: LineRow[] = [];
      for (let i = 0; i < n; i++) {
        const score = toNumber(value.scores[i]) ?? Number.NaN;
        const extra: Record<string, unknown> = {};
        for (const [k, v] of columns) if (!known.has(k) && k !== 'sampling_params') extra[k] = v[i];
        const response = value.responses[i];
        rows.push({
          completion: {
            prompt: Array.isArray(prompts) ? asText(prompts[i]) : '',
            completion: asText(response),
            rewards: { score },
            reward: score,
            length: asText(response).length,
            lengthUnit: 'chars',
            extra,
          },
        });
      }
      return rows;
    },
    notes: ["ROLL: the reward is each sample's `scores`; `sampling_params` (the same on every row) is not shown."],
    // The step's whole batch is one line (a column per field): allowed up to 256 MB.
    maxLineBytes: 256 * 1024 * 1024,
  };
}
