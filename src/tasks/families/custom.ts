/**
 * The "custom" family: prompts and answers from a loaded JSONL dataset, judged by an exact,
 * numeric (tolerance) or regex verifier. Verification needs only the instance, so the registry's
 * `customFamily` can judge any custom instance; generating needs a dataset (`makeCustomFamily`).
 */
import {
  checkCustomAnswer,
  VERIFIER_KINDS,
  type CustomVerifierSpec,
  type Dataset,
  type DatasetRecord,
  type VerifierKind,
} from '../dataset.ts';
import { countTokens, formatCompletion } from '../format.ts';
import { checkSeed, isRecord, parseInstanceWith, rngFor } from '../knobs.ts';
import type { Difficulty, TaskFamily, TaskInstance } from '../types.ts';
import { judge } from '../verdict.ts';

const ID = 'custom';

export interface CustomData {
  /** Line of the record in the dataset file. */
  line: number;
  answer: string;
  verifier: CustomVerifierSpec;
  pattern?: string;
}

function dataOf(inst: TaskInstance): CustomData {
  return inst.data as CustomData;
}

function parseInstance(value: unknown): TaskInstance {
  return parseInstanceWith(ID, value, (d) => {
    if (!isRecord(d)) return 'must be an object';
    if (typeof d.answer !== 'string') return 'answer must be a string';
    if (!isRecord(d.verifier) || !VERIFIER_KINDS.includes(d.verifier.kind as VerifierKind))
      return `verifier.kind must be one of ${VERIFIER_KINDS.join(', ')}`;
    if (
      d.verifier.tolerance !== undefined &&
      (typeof d.verifier.tolerance !== 'number' || !(d.verifier.tolerance >= 0))
    )
      return 'verifier.tolerance must be a number >= 0';
    if (d.pattern !== undefined && typeof d.pattern !== 'string') return 'pattern must be a string';
    return null;
  });
}

function checkVerifierSpec(spec: CustomVerifierSpec): void {
  if (!VERIFIER_KINDS.includes(spec.kind))
    throw new Error(`${ID}: verifier must be one of ${VERIFIER_KINDS.join(', ')}, got "${String(spec.kind)}"`);
  if (spec.tolerance !== undefined && !(spec.tolerance >= 0)) throw new Error(`${ID}: tolerance must be a number >= 0`);
}

function base(generate: TaskFamily['generate']): TaskFamily {
  return {
    id: ID,
    title: 'Your own data (JSONL)',
    description:
      'Prompts and answers from a JSONL file of {"prompt", "answer"} lines, judged by an exact, numeric ' +
      'or regex verifier.',
    knobs: [],
    defaultDifficulty: {},
    levels: [{}],
    generate,
    verify: (inst, completion, opts) =>
      judge(completion, opts, (answer) => {
        const d = dataOf(inst);
        return checkCustomAnswer(d.verifier, d.answer, d.pattern, answer);
      }),
    solve: (inst) => formatCompletion('', dataOf(inst).answer),
    parseInstance,
  };
}

/** Without a dataset: lists and verifies, but cannot generate. */
export const customFamily: TaskFamily = base(() => {
  throw new Error(
    `${ID}: no dataset loaded (import a JSONL file under "Your data"; in code, build the family with ` +
      `makeCustomFamily(parseDataset(text), { kind: 'exact' }))`,
  );
});

/** The instance of one dataset record. */
export function customInstance(rec: DatasetRecord, verifier: CustomVerifierSpec, seed = 0): TaskInstance {
  const data: CustomData = {
    line: rec.line,
    answer: rec.answer,
    verifier,
    ...(rec.pattern === undefined ? {} : { pattern: rec.pattern }),
  };
  return {
    task: ID,
    seed,
    difficulty: {},
    prompt: rec.prompt,
    reference: formatCompletion('', rec.answer),
    answer: rec.answer,
    data,
  };
}

/** A family drawing uniformly (by seed) from the dataset's records. */
export function makeCustomFamily(dataset: Dataset, verifier: CustomVerifierSpec = { kind: 'exact' }): TaskFamily {
  checkVerifierSpec(verifier);
  if (dataset.records.length === 0) throw new Error(`${ID}: dataset has no records`);
  const instance = (rec: DatasetRecord, seed: number) => customInstance(rec, verifier, seed);
  const family = base((seed: number, difficulty?: Partial<Difficulty>) => {
    checkSeed(ID, seed);
    const extra = Object.keys(difficulty ?? {});
    if (extra.length) throw new Error(`${ID}: unknown knob "${extra[0]}" (this family has no knobs)`);
    return instance(dataset.records[rngFor(ID, seed).int(0, dataset.records.length - 1)]!, seed);
  });
  const longest = (len: (r: DatasetRecord) => number) => dataset.records.reduce((a, r) => (len(r) > len(a) ? r : a));
  family.extremes = () => [
    instance(
      longest((r) => countTokens(r.prompt)),
      0,
    ),
    instance(
      longest((r) => countTokens(r.answer)),
      0,
    ),
  ];
  return family;
}
