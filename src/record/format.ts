/**
 * The run record: one file that holds a whole training run, so it can be opened and inspected with
 * no training. `rlvr train --record FILE`, `rlvr lesson run` and the playground's Keep & share all
 * write it with the one writer (RunRecorder, writer.ts), and decodeRunRecord (reader.ts) is the one reader.
 *
 * What it holds: the resolved config and where the run came from (provenance), every step's metrics
 * (keys from the metric table, src/rl/metrics.ts), its difficulty and advantage histogram, the
 * held-out evaluations, every recorded step's rollouts with their per-token channels (the numbers the
 * update graph output, src/rl/step-records.ts) and optional checkpoints (safetensors bytes) at chosen
 * steps.
 *
 * The file is gzip (CompressionStream, in Node and browsers alike) of:
 *   MAGIC (16 bytes) | header length (u32, little-endian) | header (UTF-8 JSON) | zero padding to 4 |
 *   binary section.
 * The header carries every string and scalar; the binary section carries the per-token channels,
 * each concatenated over all rollouts in record order (float32 byte planes, so gzip finds the shared
 * exponents; token ids as u16, or u32 from version 2 on; clip side and trained flag as u8), then the
 * checkpoints' bytes.
 * Per-token floats are float32: the update graph computes them in float32, so they round-trip
 * exactly; the two the host computes in float64 (the sampler's old log-probs and the aggregation
 * weight) are rounded to float32, far below anything a chart or the inspector shows. Non-finite numbers, which JSON
 * cannot hold, are written as the strings "NaN", "Infinity" and "-Infinity" where they may occur (a
 * step skipped for a non-finite loss logs them).
 *
 * Versions. 1: the playground's own runs (a base that is a playground manifest, u16 token ids).
 * 2 adds what a run of any causal LM needs (the rlvr_playground Python package records TRL runs so,
 * python/rlvr_playground/trainer.py): token ids as u32 (`channels.tokens.type`), a base that
 * describes a model from elsewhere (`provenance.base.model`, ForeignModel) instead of a manifest, and
 * the writer 'trl RecordingGRPOTrainer'. A writer writes the lowest version that holds its file
 * (recordVersion), so a playground run's record still opens in a build that reads only version 1,
 * and such a build refuses a version-2 file by its version number.
 */
import type { Manifest } from '../model/checkpoint.ts';
import type { RunConfig } from '../rl/config.ts';
import type { RolloutRecord } from '../rl/rollout.ts';
import type { StepMetrics } from '../rl/step-records.ts';

export const RUN_RECORD_FORMAT = 'rlvr-playground-run-record';
/** Bump when a reader of this version could not read the new files; a newer file is refused by name. */
export const RUN_RECORD_VERSION = 2;
/** Files at or above this size are refused before anything is decompressed. */
export const RUN_RECORD_MAX_BYTES = 200 * 1024 * 1024;
/** What a record may decompress to (a gzip bomb stops here). */
export const RUN_RECORD_MAX_UNPACKED = 1024 * 1024 * 1024;
/** The file name ending the writers use. */
export const RUN_RECORD_EXTENSION = '.rlvr.gz';

export const MAGIC = 'rlvr-run-record\n';
/** The bytes a record's gzip data starts with (the TRL export's Python writer uses the same). */
export const RUN_RECORD_MAGIC = MAGIC;

/** A held-out pass@k measurement (the same shape as src/rl/run.ts's EvalPoint). */
export interface RecordedEval {
  step: number;
  pass_at_k: Record<string, number>;
  /** Standard error of pass_at_k['1'] over the held-out prompts, where the run measured it (the chart's band). */
  pass1_se?: number;
}

/** The programs that write run records. */
export const recordWriters = [
  'rlvr train',
  'rlvr lesson run',
  'playground',
  'trl train_grpo.py',
  'trl RecordingGRPOTrainer',
] as const;
export type RecordWriter = (typeof recordWriters)[number];
/** The writers a version-1 file may name (a reader of version 1 knows only these). */
export const version1Writers: readonly RecordWriter[] = [
  'rlvr train',
  'rlvr lesson run',
  'playground',
  'trl train_grpo.py',
];

/** A base model that is not a playground checkpoint (version 2): what its Hugging Face config and tokenizer say. */
export interface ForeignModel {
  /** config.json's architectures[0], e.g. "Qwen2ForCausalLM". */
  architecture: string;
  /** config.json's model_type, e.g. "qwen2". */
  model_type: string;
  /** The model's vocabulary size (its embedding rows). */
  vocab_size: number;
  /** The tokenizer's class and where it was loaded from. */
  tokenizer: string;
  /** Parameters in the model, where the writer counted them. */
  parameters?: number;
}

/** The base a run started from: a playground checkpoint (its manifest) or, from version 2, a model from elsewhere. */
export type RecordBase =
  | { name: string; manifest: Manifest; model?: never }
  | { name: string; model: ForeignModel; manifest?: never };

/** Where a run came from. */
export interface RecordProvenance {
  /** Which writer made the file ('trl train_grpo.py': the script `rlvr export --format trl` writes, trained by TRL). */
  writer: RecordWriter;
  /** The command line (CLI) or what started the run (the page). */
  command: string;
  /** ISO date and time the recording started. */
  created: string;
  /** The base checkpoint the run started from. */
  base: RecordBase;
  /** `rlvr lesson run`: which lesson, arm and seed. */
  lesson?: { id: string; arm: string; seed: number };
  /**
   * What else a reader should know (a run resumed from an autosave has no rollouts for its earlier steps; an SFT warm
   * start).
   */
  note?: string;
}

/** One update: its metrics and what the trainer reported with them. */
export interface RecordedStep {
  step: number;
  metrics: StepMetrics;
  difficulty?: Record<string, number | string>;
  advantage_histogram?: { edges: number[]; counts: number[] };
}

export interface RecordedCheckpoint {
  /** Updates done when it was taken (0 = the base). */
  step: number;
  manifest: Manifest;
  /** safetensors bytes. */
  safetensors: Uint8Array;
}

/** Knobs changed live between steps: `changed` is in force from update `step + 1` on. */
export interface ConfigChange {
  step: number;
  changed: Partial<RunConfig>;
}

export interface RunRecord {
  format: typeof RUN_RECORD_FORMAT;
  version: number;
  /** The resolved config the run started with. */
  config: RunConfig;
  config_changes: ConfigChange[];
  provenance: RecordProvenance;
  /** The metric table's keys when it was written (src/rl/metrics.ts). */
  metric_keys: string[];
  steps: RecordedStep[];
  evals: RecordedEval[];
  /** Each recorded step's rollouts, with every per-token channel. */
  rollouts: { step: number; records: RolloutRecord[] }[];
  checkpoints: RecordedCheckpoint[];
}

/** What the trainer reports after a step (src/rl/trainer.ts StepResult, the fields a record keeps). */
export interface RecordableStep {
  metrics: StepMetrics;
  difficulty?: Record<string, number | string>;
  advantageHistogram?: { edges: number[]; counts: number[] };
  rollouts: RolloutRecord[];
}

// ---- per-token channels ------------------------------------------------------------------------

/** Float channels over a completion's scored tokens (`scored` of them; refLogp only when present). */
export const scoredFloat = [
  'newLogp',
  'ratio',
  'entropy',
  'kl',
  'objective',
  'tokenLoss',
  'weight',
  'lossContribution',
] as const;
export type ChannelName = 'tokens' | 'oldLogp' | 'refLogp' | 'clipped' | 'trained' | (typeof scoredFloat)[number];
export type ChannelType = 'u32' | 'u16' | 'f32' | 'u8';
/** Each channel's encoding; token ids are u16 unless one does not fit (then u32, version 2). */
export const channelType: Record<ChannelName, 'u16' | 'f32' | 'u8'> = {
  tokens: 'u16',
  oldLogp: 'f32',
  refLogp: 'f32',
  clipped: 'u8',
  trained: 'u8',
  newLogp: 'f32',
  ratio: 'f32',
  entropy: 'f32',
  kl: 'f32',
  objective: 'f32',
  tokenLoss: 'f32',
  weight: 'f32',
  lossContribution: 'f32',
};
export const channelNames = Object.keys(channelType) as ChannelName[];
/** The channels in file order with their encodings (the TRL export's Python writer follows this list). */
export const runRecordChannels: readonly (readonly [ChannelName, 'u16' | 'f32' | 'u8'])[] = channelNames.map(
  (n) => [n, channelType[n]] as const,
);
/** The writers a version-1 file may name (the Python writer chooses its version by them). */
export const runRecordVersion1Writers: readonly RecordWriter[] = version1Writers;
/** The channels with one value per scored token (the `m` of a rollout; refLogp too, when present). */
export const runRecordScoredChannels: readonly ChannelName[] = [...scoredFloat, 'clipped', 'trained'];
export const clipCode = { low: 1, high: 2 } as const;
export const widthOf = (t: ChannelType): number => (t === 'f32' || t === 'u32' ? 4 : t === 'u16' ? 2 : 1);

/**
 * The lowest version that holds a file: 2 when a token id needs 32 bits, the base is not a playground
 * manifest or the writer is one version 1 does not know; else 1. The Python writer follows the same
 * rule (python/rlvr_playground/rlvr_record.py).
 */
export function recordVersion(provenance: RecordProvenance, maxTokenId: number): number {
  return maxTokenId > 0xffff || !provenance.base.manifest || !version1Writers.includes(provenance.writer) ? 2 : 1;
}

/** A rollout's strings and scalars (what the header carries); its per-token numbers live in the binary section. */
export interface RolloutMeta {
  group: number;
  index: number;
  prompt: string;
  hint: string;
  completion: string;
  tokenText: string[];
  advantage: number | string;
  reward: number | string;
  components: Record<string, number | string>;
  correct: boolean;
  reason: string;
  truncated: boolean;
  hinted: boolean;
  flipped: 'fn' | 'fp' | null;
  /** Tokens (and token texts); old log-probs; scored tokens (every other channel); whether refLogp is present. */
  n: number;
  o: number;
  m: number;
  ref: boolean;
}

/**
 * Splits little-endian words into byte planes (all first bytes, then all second bytes...): gzip compresses floats far
 * better so.
 */
export function toPlanes(raw: Uint8Array, width: number): Uint8Array {
  const n = raw.length / width;
  const out = new Uint8Array(raw.length);
  for (let p = 0; p < width; p++) for (let i = 0; i < n; i++) out[p * n + i] = raw[i * width + p]!;
  return out;
}

export function fromPlanes(planes: Uint8Array, width: number): Uint8Array {
  const n = planes.length / width;
  const out = new Uint8Array(planes.length);
  for (let p = 0; p < width; p++) for (let i = 0; i < n; i++) out[i * width + p] = planes[p * n + i]!;
  return out;
}

/** What is wrong with a file that is not a readable run record. */
export class RunRecordError extends Error {
  constructor(message: string) {
    super(`not a readable run record: ${message}`);
  }
}
