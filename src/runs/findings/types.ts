/**
 * Findings: a run's anomalies, each pointing at the samples behind it (docs/findings.md). A rule measures
 * each step once, in a single pass over the run (src/runs/findings/find.ts), into small plain data that
 * can cross to a worker thread; it then judges the whole run from those measures and the logged curves.
 */
import type { RunIndex, RunStep } from '../types.ts';

/** The kinds of finding (`rlvr findings`' `kind`, the page's `finding=KIND`); docs/findings.md defines each. */
export const findingKinds = [
  'zero_variance_group',
  'reward_hacking',
  'truncation',
  'repetition',
  'length_blowup',
  'logprob_mismatch',
  'entropy_collapse',
  'nonfinite',
] as const;
export type FindingKind = (typeof findingKinds)[number];

export interface Finding {
  /** The run's name (RunIndex.name). */
  run: string;
  kind: FindingKind;
  /** The step to open: the step it is about, or for a range the step where it shows first. */
  step: number;
  /** For a finding over a range of steps: its first and last step. */
  steps?: [number, number];
  /** The group (RunGroup.index in `step`) it is about, or null when it is about several or none. */
  group: number | null;
  /** The completions it is about: RunCompletion.row within `step` (empty when it is about a curve). */
  rows: number[];
  /** How strong it is, to sort by: higher is worse (docs/findings.md gives each kind's). */
  score: number;
  /** One sentence a person can act on: what, where, how much, and the threshold. */
  text: string;
}

/** What a rule knows of the run besides its steps. */
export interface FindingContext {
  name: string;
  index: RunIndex;
}

/** A rule's measure of one step. */
export interface Measured<M> {
  step: number;
  value: M;
}

/**
 * One kind of finding. `measure` sees each step once, in step order (possibly in another thread, so what
 * it returns is plain data: numbers, strings, arrays, objects); `judge` sees every step's measure, in
 * step order, and returns the findings.
 */
export interface FindingRule<M = unknown> {
  kind: FindingKind;
  measure(step: RunStep, context: FindingContext): M;
  judge(measured: Measured<M>[], context: FindingContext): Finding[];
}

/** Rows listed in one finding at most (the count in its text goes on past it). */
export const MAX_FINDING_ROWS = 256;
