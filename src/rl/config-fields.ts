/**
 * Every run-config field, declared once: its type, default, range or choices, one-line help, paper,
 * the group it sits in under the UI's "Advanced", and whether changing it needs a new run. The
 * RunConfig type, the defaults, validation (config.ts), the setup form (src/ui/derive/config-form.ts), the
 * URL (src/ui/derive/url-state.ts), `rlvr train --help` and docs/config.md's field table are all derived from
 * this table. Where TRL's GRPOConfig has a knob, the field has its name and meaning (`trl: true`), so a
 * setting carries over to TRL and back.
 *
 * Adding a knob: add one entry to its group's file in config-fields/ (run.ts, sampling.ts, …), then use it
 * where it acts (trainer, objective, sampler…).
 */

import { parseTargets, targetsProblem } from '../model/lora.ts';
import type { FieldDecl } from './config-fields/decl.ts';
import { runFields } from './config-fields/run.ts';
import { samplingFields } from './config-fields/sampling.ts';
import { optimisationFields } from './config-fields/optimisation.ts';
import { objectiveFields } from './config-fields/objective.ts';
import { dataFields } from './config-fields/data.ts';
import { curriculumFields } from './config-fields/curriculum.ts';
import { evaluationFields } from './config-fields/evaluation.ts';

export type { FieldDecl, FieldGroup } from './config-fields/decl.ts';

/** Every field, in the order the form, the docs table and `--help` list them. */
export const fieldTable = {
  ...runFields,
  ...samplingFields,
  ...optimisationFields,
  ...objectiveFields,
  ...dataFields,
  ...curriculumFields,
  ...evaluationFields,
} as const satisfies Record<string, FieldDecl>;

type Table = typeof fieldTable;

/** The TypeScript type of one declared field's value. */
type ValueOf<D> = D extends { kind: 'int' | 'num' }
  ? number
  : D extends { kind: 'nullable-num' }
    ? number | null
    : D extends { kind: 'enum'; values: readonly (infer V)[] }
      ? V
      : D extends { kind: 'bool' }
        ? boolean
        : D extends { kind: 'str' }
          ? string
          : D extends { kind: 'record' }
            ? Record<string, number | string>
            : D extends { kind: 'weights'; parts: infer P }
              ? { -readonly [K in keyof P]: number }
              : never;

/** The run config: one value per declared field (typed, validated, JSON-serialisable). */
export type RunConfig = { -readonly [K in keyof Table]: ValueOf<Table[K]> };

/** Field names in declaration order. */
export const configFields = Object.keys(fieldTable) as (keyof RunConfig)[];

export const fieldDecl = (k: keyof RunConfig): FieldDecl => fieldTable[k];

/**
 * The one rule for what a running run cannot take between steps, so a new run is needed: the fields
 * declared `restart: true` above (they change the compiled graphs, the prompt stream or the model), and
 * the difficulty while a ladder curriculum sets it or while the task it belongs to changes too.
 * `changed` is every field the edit changes.
 */
export function needsRestart(
  k: keyof RunConfig,
  running: Pick<RunConfig, 'curriculum'>,
  changed: readonly (keyof RunConfig)[],
): boolean {
  if ((fieldTable[k] as FieldDecl).restart === true) return true;
  return k === 'difficulty' && (running.curriculum === 'ladder' || changed.includes('task'));
}

/**
 * Rules between fields, each charged to one field (the one the message names). Checked after every
 * field is valid on its own.
 */
export const crossFieldRules: { field: keyof RunConfig; rule: string; check: (c: RunConfig) => string | null }[] = [
  {
    field: 'epsilon_high',
    rule: '≥ epsilon',
    check: (c) => (c.epsilon_high < c.epsilon ? `must be >= epsilon (${c.epsilon}), got ${c.epsilon_high}` : null),
  },
  {
    field: 'random_token_fraction',
    rule: 'top_entropy_quantile = 1',
    check: (c) =>
      c.random_token_fraction < 1 && c.top_entropy_quantile < 1
        ? `cannot be set with top_entropy_quantile (${c.top_entropy_quantile}): choose tokens at random or ` +
          'by entropy, not both'
        : null,
  },
  {
    field: 'ladder_step_back_at',
    rule: '< ladder_advance_at',
    check: (c) =>
      c.ladder_step_back_at >= c.ladder_advance_at ? `must be below ladder_advance_at (${c.ladder_advance_at})` : null,
  },
  {
    field: 'multi_objective_aggregation',
    rule: 'normalize_then_sum needs advantage_estimator grpo and reward_source verifier',
    check: (c) =>
      c.multi_objective_aggregation === 'normalize_then_sum' &&
      (c.advantage_estimator !== 'grpo' || c.reward_source !== 'verifier')
        ? 'normalize_then_sum needs advantage_estimator grpo and reward_source verifier (its reward ' +
          `functions apart), got ${c.advantage_estimator} and ${c.reward_source}`
        : null,
  },
  {
    field: 'steps_per_generation',
    rule: '0, or a multiple of minibatches that divides prompts_per_step × num_generations',
    check: (c) =>
      c.steps_per_generation > 0 &&
      (c.steps_per_generation % c.minibatches !== 0 ||
        (c.prompts_per_step * c.num_generations) % c.steps_per_generation !== 0)
        ? `must be 0 or a multiple of minibatches (${c.minibatches}) that divides prompts_per_step × ` +
          `num_generations (${c.prompts_per_step * c.num_generations}), got ${c.steps_per_generation}`
        : null,
  },
  {
    field: 'target_modules',
    rule: "PEFT's module names",
    check: (c) => (c.lora_r > 0 ? targetsProblem(parseTargets(c.target_modules)) : null),
  },
  {
    field: 'lora_dropout',
    rule: '0 (no dropout in the engine)',
    check: (c) =>
      c.lora_r > 0 && c.lora_dropout > 0
        ? `must be 0: the engine has no dropout (TRL's disable_dropout, which the export sets, zeroes it ` +
          `too), got ${c.lora_dropout}`
        : null,
  },
  {
    field: 'minibatches',
    rule: 'divides prompts_per_step × num_generations',
    check: (c) =>
      (c.prompts_per_step * c.num_generations) % c.minibatches !== 0
        ? `must divide prompts_per_step × num_generations (${c.prompts_per_step * c.num_generations}), got ` +
          `${c.minibatches}`
        : null,
  },
];
