/**
 * A run's findings in one pass: each step is read once (OpenedRun.readStep, one at a time, so the run is
 * never held whole) and measured by every rule; the rules then judge the whole run from those measures
 * and the logged curves. `measureSteps` and `judgeRun` are the two halves, so `rlvr view` can measure
 * shares of the steps in worker threads and judge once (src/node/view-findings.ts).
 */
import { why } from '../files.ts';
import type { OpenedRun, RunIndex, RunProblem } from '../types.ts';
import { findingRules } from './registry.ts';
import type { Finding, FindingContext, FindingKind, FindingRule, Measured } from './types.ts';

/** Every rule's measure of one step, by kind. */
export type StepMeasures = { step: number; byKind: Partial<Record<FindingKind, unknown>> };

export interface FindingsProgress {
  done: number;
  total: number;
}

export interface FindingsOptions {
  signal?: AbortSignal;
  onProgress?: (p: FindingsProgress) => void;
  /** Only these kinds (every kind when absent). */
  kinds?: readonly FindingKind[];
}

export interface FindingsResult {
  findings: Finding[];
  stepsRead: number;
  cancelled: boolean;
  /** Steps that could not be read (each skipped, the rest measured). */
  problems: RunProblem[];
}

const rulesFor = (kinds?: readonly FindingKind[]): FindingRule<unknown>[] =>
  findingRules.filter((r) => !kinds || kinds.includes(r.kind));

/** Measures `steps` of a run in order; stops between steps when `signal` aborts. */
export async function measureSteps(
  run: OpenedRun,
  steps: readonly number[],
  options: FindingsOptions = {},
): Promise<{ measures: StepMeasures[]; problems: RunProblem[]; cancelled: boolean }> {
  const rules = rulesFor(options.kinds);
  const context: FindingContext = { name: run.index.name, index: run.index };
  const measures: StepMeasures[] = [];
  const problems: RunProblem[] = [];
  for (const step of steps) {
    if (options.signal?.aborted) return { measures, problems, cancelled: true };
    let read;
    try {
      read = await run.readStep(step);
    } catch (e) {
      problems.push({ file: run.index.name, message: `step ${step}: ${why(e)}` });
      continue;
    }
    problems.push(...read.problems);
    const byKind: StepMeasures['byKind'] = {};
    for (const rule of rules) byKind[rule.kind] = rule.measure(read, context);
    measures.push({ step, byKind });
    options.onProgress?.({ done: measures.length, total: steps.length });
  }
  return { measures, problems, cancelled: false };
}

/** The findings from every step's measures (in step order), sorted by score, highest first. */
export function judgeRun(
  index: RunIndex,
  measures: readonly StepMeasures[],
  kinds?: readonly FindingKind[],
): Finding[] {
  const context: FindingContext = { name: index.name, index };
  const findings: Finding[] = [];
  for (const rule of rulesFor(kinds)) {
    const measured: Measured<unknown>[] = measures
      .filter((m) => rule.kind in m.byKind)
      .map((m) => ({ step: m.step, value: m.byKind[rule.kind] }));
    findings.push(...rule.judge(measured, context));
  }
  return sortFindings(findings);
}

/** A finding as `rlvr findings --json` and `GET /runs/NAME/findings.json` give it: these keys, in this order. */
export const findingToJson = (f: Finding) => ({
  run: f.run,
  kind: f.kind,
  step: f.step,
  group: f.group,
  rows: f.rows,
  score: Number(f.score.toFixed(4)),
  text: f.text,
});

/** Highest score first; ties by step, then kind, so the order is the same however the work was shared. */
export const sortFindings = (findings: Finding[]): Finding[] =>
  findings.sort((a, b) => b.score - a.score || a.step - b.step || a.kind.localeCompare(b.kind));

/** Every finding of a run: one pass over its steps, then the whole-run rules. */
export async function findRunFindings(run: OpenedRun, options: FindingsOptions = {}): Promise<FindingsResult> {
  const steps = [...run.index.steps];
  const { measures, problems, cancelled } = await measureSteps(run, steps, options);
  if (cancelled) return { findings: [], stepsRead: measures.length, cancelled, problems };
  return { findings: judgeRun(run.index, measures, options.kinds), stepsRead: measures.length, cancelled, problems };
}
