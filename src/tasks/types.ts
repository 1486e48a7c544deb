/**
 * The contract between task families and the rest of the playground (trainer, UI, CLI).
 * Everything here is plain data so instances and verdicts cross the worker boundary and land in
 * JSON files unchanged.
 */
import type { FormatSpec } from './format.ts';

export type Difficulty = Record<string, number | string>;

export interface KnobSpec {
  name: string;
  description: string;
  default: number | string;
  min?: number;
  max?: number;
  /** For string knobs: the allowed values. */
  choices?: string[];
  /** Numeric knobs are integers unless this is false. */
  integer?: boolean;
}

export interface TaskInstance {
  task: string;
  seed: number;
  /** The full, resolved difficulty (every knob present), so the instance can be regenerated. */
  difficulty: Difficulty;
  prompt: string;
  /** A full completion in the default format that gets full reward. */
  reference: string;
  /** The reference answer text inside <answer>. */
  answer: string;
  /** JSON-serialisable; what the verifier needs. */
  data: unknown;
}

export interface RewardComponents {
  /** 1 when the answer is right, else 0. */
  correctness: number;
  /** 1 when the completion follows the FormatSpec exactly, else 0. */
  format: number;
  /** Partial credit in [0, 1] where the family has it (cells right, clauses satisfied, Kendall tau...). */
  partial?: number;
}

export interface Verdict {
  correct: boolean;
  components: RewardComponents;
  /** Short, human-readable: "used 7 twice", "clause 3 unsatisfied: (¬x2 ∨ x4 ∨ ¬x5)". */
  reason: string;
}

export interface VerifyOptions {
  /** Completion format; defaults to <think>…</think><answer>…</answer> with the think block required. */
  format?: FormatSpec;
  /** Sort family: 'exact' (default) leaves partial unset; 'kendall' puts normalised Kendall tau in partial. */
  sortMetric?: 'exact' | 'kendall';
}

export interface TaskFamily {
  id: string;
  title: string;
  description: string;
  knobs: KnobSpec[];
  defaultDifficulty: Difficulty;
  /** Ordered easy -> hard; each entry is a full difficulty. */
  levels: Difficulty[];
  /** Validates knobs and throws an Error naming the knob on bad values. */
  generate(seed: number, difficulty?: Partial<Difficulty>): TaskInstance;
  /** Never throws, whatever the completion. */
  verify(instance: TaskInstance, completion: string, opts?: VerifyOptions): Verdict;
  /** A deliberately lenient variant for reward-hacking lessons; `leakyDescription` says what it lets through. */
  leakyVerify?(instance: TaskInstance, completion: string, opts?: VerifyOptions): Verdict;
  leakyDescription?: string;
  /** Reference solver: solves the instance from its data and returns a completion in the default format. */
  solve(instance: TaskInstance): string;
  /** Checks an instance read from outside (a JSON file); throws an Error saying what is wrong. */
  parseInstance(value: unknown): TaskInstance;
  /**
   * Families drawing from a finite list (the custom dataset): the instances with the longest prompt
   * and the longest reference, so the layout probe sizes the grid for every record, not only those
   * its seeds happen to draw.
   */
  extremes?(): TaskInstance[];
}
