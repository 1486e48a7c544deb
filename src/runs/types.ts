/**
 * The one shape every opened run has in the viewer, whatever wrote it: TRL's `output_dir`
 * (`completions/completions_*.parquet` and `trainer_state.json`), veRL's `trainer.rollout_data_dir`
 * (`{global_step}.jsonl`), the documented JSONL (docs/run-formats.md) and the playground's own record
 * (src/record/run-record.ts).
 *
 * A reader indexes first and reads a step only when it is asked for, so a run of thousands of steps
 * and gigabytes of text is never held whole: `openRun` returns the index (which steps exist, the
 * logged curves, what was skipped), `readStep` reads one step's rows, `search` streams over every step.
 * Files are reached only through `RunFiles`, so the same reader runs on a folder the page was given
 * (a directory handle or dropped files), on a folder `rlvr view` serves over HTTP, and on Node's fs.
 */

/** The formats a run can be in; `rlvr view`'s `/runs.json` uses these words. */
export const runFormats = [
  'trl',
  'verl',
  'jsonl',
  'record',
  'nemo-rl',
  'prime-rl',
  'roll',
  'areal',
  'trackio',
] as const;
export type RunFormat = (typeof runFormats)[number];

/** One file under the opened root. */
export interface RunFileEntry {
  /** '/'-separated, relative to the root, no leading '/'. */
  path: string;
  size: number;
}

/** Read-only access to a folder of files, wherever it lives. */
export interface RunFiles {
  /** A name for the root (the folder's own name), used in messages. */
  readonly name: string;
  /** Every file under the root (recursively). Called again to see files a live run has added since. */
  list(): Promise<RunFileEntry[]>;
  /** Bytes [start, end) of a file; the whole file when both are omitted. */
  read(path: string, start?: number, end?: number): Promise<Uint8Array>;
  /**
   * Several whole files at once, in the order asked (optional): where each read is a request (a run
   * `rlvr view` serves), one request for many small files instead of one each.
   */
  readMany?(paths: string[]): Promise<Uint8Array[]>;
}

/** Something a reader could not read: the run still opens, and the page lists these. */
export interface RunProblem {
  /** The file, relative to the root. */
  file: string;
  /** The line (JSONL, 1-based) or row (parquet, 0-based) where it was found, when there is one. */
  line?: number;
  row?: number;
  /** What was wrong and what was expected, in words a person can act on. */
  message: string;
}

/** A metric curve point, from TRL's `log_history`, a record's step metrics, or computed from rollouts. */
export interface MetricPoint {
  step: number;
  values: Record<string, number>;
}

/** Per-token numbers, where the writer recorded tokens (the record, the recording trainer, JSONL `tokens`). */
export interface TokenChannels {
  /** Each token's text, in the model's own tokenizer. */
  text: string[];
  ids?: number[];
  /** Sampling log-probs (the behaviour policy). */
  logprobs?: number[];
  /** The trained policy's log-probs, where recorded. */
  newLogprobs?: number[];
  /**
   * Whether `newLogprobs` were computed with the weights that sampled (no update of this batch before them),
   * so they should equal `logprobs` but for numerics (the `logprob_mismatch` finding compares them); false
   * where updates of the batch came first (a record's later minibatches or iterations); absent where the
   * reader does not know.
   */
  newLogprobsBeforeUpdate?: boolean;
  refLogprobs?: number[];
  /** Each token's advantage, where the writer logged them per token (NeMo-RL's `advantages`). */
  advantages?: number[];
  entropy?: number[];
  ratio?: number[];
  /** 'low' | 'high' where the clipped side was taken. */
  clipped?: ('low' | 'high' | null)[];
}

/** One completion in one step. */
export interface RunCompletion {
  /** Its position among the step's rows (0-based), as the file holds them. */
  row: number;
  prompt: string;
  completion: string;
  /** Each reward function's value, by name (TRL: one column per function; veRL: `score` and every reward field). */
  rewards: Record<string, number>;
  /** The total reward the advantage was computed from (TRL: the sum of the reward columns; veRL: `score`). */
  reward: number;
  /** As the writer logged it; absent where it did not. */
  advantage?: number;
  /** Tokens where recorded, else characters of the completion. */
  length: number;
  lengthUnit: 'tokens' | 'chars';
  /** Whether the completion hit the length limit, where the writer says so. */
  truncated?: boolean;
  tokens?: TokenChannels;
  /** Every other column or field, as read (a reward function's extra logs, veRL's `gts`). */
  extra: Record<string, unknown>;
}

/** Consecutive completions of one prompt in one step (TRL: `num_generations` rows; veRL: lines sharing `input`). */
export interface RunGroup {
  /** 0-based position in the step. */
  index: number;
  prompt: string;
  completions: RunCompletion[];
  /** Mean and sample (n−1) standard deviation of the completions' total rewards. */
  mean: number;
  std: number;
}

export interface RunStep {
  step: number;
  groups: RunGroup[];
  /** Rows of this step that could not be read. */
  problems: RunProblem[];
}

/** What an opened run knows before any step is read. */
export interface RunIndex {
  name: string;
  format: RunFormat;
  /** Steps with rollouts, ascending. */
  steps: number[];
  /** The logged curves (TRL's `log_history`, a record's metrics), ascending by step; empty if none. */
  metrics: MetricPoint[];
  /** Reward function names seen, in first-seen order. */
  rewardNames: string[];
  /** What was skipped while indexing, each with its file and line or row. */
  problems: RunProblem[];
  /** The writer's words about the run (a record's provenance, TRL's model name), when known. */
  notes: string[];
}

/** A filter over every step; unset fields do not filter. */
export interface RunQuery {
  /** Plain text (case-insensitive) or, when `regex` is set, a regular expression's source. */
  text?: string;
  regex?: boolean;
  /** Where the text is looked for. */
  in?: 'prompt' | 'completion' | 'both';
  rewardMin?: number;
  rewardMax?: number;
  advantageSign?: 'positive' | 'negative' | 'zero';
  lengthMin?: number;
  lengthMax?: number;
  /** Only completions in groups whose rewards all agree. */
  zeroVarianceGroups?: boolean;
  truncated?: boolean;
  /** Only this exact prompt ("this prompt over training"). */
  prompt?: string;
  /** Each named reward function's range (RunCompletion.rewards), both ends inclusive; a row without it fails. */
  rewardRanges?: Record<string, NumberRange>;
  advantageMin?: number;
  advantageMax?: number;
  /**
   * Only rows a finding of this kind points at (src/runs/findings/types.ts FindingKind): the run's findings,
   * computed before, are given to the search as RunSearchOptions.findingRows.
   */
  finding?: string;
  /** The hits' order (absent: step order): a number of each row, NaN and missing last either way. */
  sort?: RunSortKey;
  order?: 'asc' | 'desc';
}

/** Both ends inclusive; an absent end does not bound. */
export interface NumberRange {
  min?: number;
  max?: number;
}

/** What hits can be sorted by: the total reward, one reward function's (`reward.NAME`), the advantage or the length. */
export type RunSortKey = 'reward' | 'advantage' | 'length' | `reward.${string}`;

export interface RunSearchHit {
  step: number;
  group: number;
  row: number;
  prompt: string;
  completion: string;
  reward: number;
  advantage?: number;
  length: number;
  /** Each reward function's value (RunCompletion.rewards). */
  rewards?: Record<string, number>;
  truncated?: boolean;
}

export interface RunSearchProgress {
  /** Steps searched so far, of `total`. */
  done: number;
  total: number;
  hits: number;
}

export interface RunSearchOptions {
  signal?: AbortSignal;
  onProgress?: (p: RunSearchProgress) => void;
  /** Hits kept (the count goes on past it). */
  limit?: number;
  /** Only these steps (those the run has), in the order given; every step when absent (a server search's share). */
  steps?: number[];
  /**
   * Pass over step files whose raw bytes cannot match the query's text (src/runs/raw-prefilter.ts), where
   * the reader can tell; the hits and count are the same. Their problems are then not found.
   */
  rawPrefilter?: boolean;
  /** Count the matches' total rewards into RunSearchResult.histogram (every match, not only the hits kept). */
  histogram?: boolean;
  /** The rows the run's findings of RunQuery.finding's kind point at, by step (findingRowsOf, search-query.ts). */
  findingRows?: FindingRows;
}

/** Rows of steps: each step once, its rows (RunCompletion.row). Plain data, so it crosses to a worker. */
export type FindingRows = { step: number; rows: number[] }[];

export interface RunSearchResult {
  hits: RunSearchHit[];
  /** Every match, including those past `limit`. */
  count: number;
  stepsSearched: number;
  cancelled: boolean;
  /** The step files the search could not read, in step order: each step skipped, the rest searched. */
  problems?: RunProblem[];
  /** The matches' total rewards, where RunSearchOptions.histogram asked (src/runs/reward-histogram.ts). */
  histogram?: RewardHistogram;
}

/**
 * Counts of values in bins that are ordered intervals of the number line: each bin is [min, max] of the
 * values it holds, so a range filter from a bin's (or several adjacent bins') min to max selects exactly
 * the values counted there. `width` 0: one bin per distinct value; else bin `key` holds values in
 * [key·width, (key+1)·width). Non-finite values are counted apart.
 */
export interface RewardHistogram {
  width: number;
  /** [key, count, min, max], by key ascending. */
  bins: [number, number, number, number][];
  /** NaN and ±Infinity rewards, not in any bin. */
  nonFinite: number;
}

/** An opened run. */
export interface OpenedRun {
  readonly index: RunIndex;
  readStep(step: number): Promise<RunStep>;
  search(query: RunQuery, options?: RunSearchOptions): Promise<RunSearchResult>;
  /** Lists the files again and adds steps and metrics a run still being written has added; returns the new index. */
  refresh(): Promise<RunIndex>;
}

/** A run found under a root: its folder (relative, '' for the root itself) and format. */
export interface FoundRun {
  /** The folder relative to the root ('' when the root is the run), or the record file's path. */
  path: string;
  name: string;
  format: RunFormat;
}
