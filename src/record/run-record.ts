/**
 * The run record: one file that holds a whole training run, so it can be opened and inspected with
 * no training. `rlvr train --record FILE`, `rlvr lesson run` and the playground's Keep & share all
 * write it with the one writer here (RunRecorder), and decodeRunRecord is the one reader.
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
import { validateManifest } from '../model/checkpoint.ts';
import { validateConfig, type RunConfig } from '../rl/config.ts';
import { isMetricKey, metricKeys } from '../rl/metrics.ts';
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

const MAGIC = 'rlvr-run-record\n';
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
const version1Writers: readonly RecordWriter[] = ['rlvr train', 'rlvr lesson run', 'playground', 'trl train_grpo.py'];

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
  /** What else a reader should know (a run resumed from an autosave has no rollouts for its earlier steps; an SFT warm start). */
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
const scoredFloat = [
  'newLogp',
  'ratio',
  'entropy',
  'kl',
  'objective',
  'tokenLoss',
  'weight',
  'lossContribution',
] as const;
type ChannelName = 'tokens' | 'oldLogp' | 'refLogp' | 'clipped' | 'trained' | (typeof scoredFloat)[number];
type ChannelType = 'u32' | 'u16' | 'f32' | 'u8';
/** Each channel's encoding; token ids are u16 unless one does not fit (then u32, version 2). */
const channelType: Record<ChannelName, 'u16' | 'f32' | 'u8'> = {
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
const channelNames = Object.keys(channelType) as ChannelName[];
/** The channels in file order with their encodings (the TRL export's Python writer follows this list). */
export const runRecordChannels: readonly (readonly [ChannelName, 'u16' | 'f32' | 'u8'])[] = channelNames.map(
  (n) => [n, channelType[n]] as const,
);
/** The writers a version-1 file may name (the Python writer chooses its version by them). */
export const runRecordVersion1Writers: readonly RecordWriter[] = version1Writers;
/** The channels with one value per scored token (the `m` of a rollout; refLogp too, when present). */
export const runRecordScoredChannels: readonly ChannelName[] = [...scoredFloat, 'clipped', 'trained'];
const clipCode = { low: 1, high: 2 } as const;
const widthOf = (t: ChannelType): number => (t === 'f32' || t === 'u32' ? 4 : t === 'u16' ? 2 : 1);

/**
 * The lowest version that holds a file: 2 when a token id needs 32 bits, the base is not a playground
 * manifest or the writer is one version 1 does not know; else 1. The Python writer follows the same
 * rule (python/rlvr_playground/rlvr_record.py).
 */
export function recordVersion(provenance: RecordProvenance, maxTokenId: number): number {
  return maxTokenId > 0xffff || !provenance.base.manifest || !version1Writers.includes(provenance.writer) ? 2 : 1;
}

/** A rollout's strings and scalars (what the header carries); its per-token numbers live in the binary section. */
interface RolloutMeta {
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

type Packed = { [K in ChannelName]: Uint8Array | Uint32Array | Float32Array };

/**
 * One step's rollouts, packed as they arrive: the strings and scalars as their JSON text, the
 * per-token numbers as typed arrays, so a long run in the worker holds compact bytes, not objects.
 */
interface PackedStep {
  step: number;
  /** JSON text of the step's RolloutMeta list. */
  meta: string;
  channels: Packed;
}

const finiteOrName = (x: number): number | string => (Number.isFinite(x) ? x : String(x));

function packStep(step: number, records: RolloutRecord[]): PackedStep {
  const count = (f: (r: RolloutRecord) => number) => records.reduce((a, r) => a + f(r), 0);
  const nTok = count((r) => r.tokens.length);
  const nOld = count((r) => r.oldLogp.length);
  const nScored = count((r) => r.ratio.length);
  const nRef = count((r) => (r.refLogp ? r.ratio.length : 0));
  const ch: Packed = {
    tokens: new Uint32Array(nTok),
    oldLogp: new Float32Array(nOld),
    refLogp: new Float32Array(nRef),
    clipped: new Uint8Array(nScored),
    trained: new Uint8Array(nScored),
    newLogp: new Float32Array(nScored),
    ratio: new Float32Array(nScored),
    entropy: new Float32Array(nScored),
    kl: new Float32Array(nScored),
    objective: new Float32Array(nScored),
    tokenLoss: new Float32Array(nScored),
    weight: new Float32Array(nScored),
    lossContribution: new Float32Array(nScored),
  };
  let t = 0;
  let o = 0;
  let s = 0;
  let rf = 0;
  const meta = records.map((r, i): RolloutMeta => {
    const m = r.ratio.length;
    const where = `step ${step}, rollout ${i}`;
    if (r.tokenText.length !== r.tokens.length)
      throw new Error(`run record: ${where} has ${r.tokens.length} tokens but ${r.tokenText.length} token texts`);
    for (const k of [...scoredFloat, 'clipped', 'trained'] as const)
      if (r[k].length !== m) throw new Error(`run record: ${where}: ${k} has ${r[k].length} values, ratio ${m}`);
    if (r.refLogp && r.refLogp.length !== m)
      throw new Error(`run record: ${where}: refLogp has ${r.refLogp.length} values, ratio ${m}`);
    for (const id of r.tokens) {
      if (!Number.isInteger(id) || id < 0 || id > 0xffffffff) {
        throw new Error(`run record: ${where}: token id ${id} is not a whole number that fits 32 bits`);
      }
      ch.tokens[t++] = id;
    }
    (ch.oldLogp as Float32Array).set(r.oldLogp, o);
    o += r.oldLogp.length;
    if (r.refLogp) {
      (ch.refLogp as Float32Array).set(r.refLogp, rf);
      rf += m;
    }
    for (const k of scoredFloat) (ch[k] as Float32Array).set(r[k], s);
    for (let j = 0; j < m; j++) {
      const c = r.clipped[j];
      ch.clipped[s + j] = c ? clipCode[c] : 0;
      ch.trained[s + j] = r.trained[j] ? 1 : 0;
    }
    s += m;
    return {
      group: r.group,
      index: r.index,
      prompt: r.prompt,
      hint: r.hint,
      completion: r.completion,
      tokenText: r.tokenText,
      advantage: finiteOrName(r.advantage),
      reward: finiteOrName(r.reward),
      components: Object.fromEntries(Object.entries(r.components).map(([k, v]) => [k, finiteOrName(v)])),
      correct: r.correct,
      reason: r.reason,
      truncated: r.truncated,
      hinted: r.hinted,
      flipped: r.flipped,
      n: r.tokens.length,
      o: r.oldLogp.length,
      m,
      ref: !!r.refLogp,
    };
  });
  return { step, meta: JSON.stringify(meta), channels: ch };
}

const metricsOut = (m: StepMetrics): Record<string, number | string> =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [k, finiteOrName(v)]));

// ---- the writer ---------------------------------------------------------------------------------

/**
 * Builds a run record from the trainer's events: a step's result (with or without its rollouts), an
 * evaluation, a checkpoint. `encode()` writes the file's bytes; the recorder can go on afterwards.
 */
export class RunRecorder {
  private readonly steps: RecordedStep[] = [];
  private readonly evals: RecordedEval[] = [];
  private readonly packed: PackedStep[] = [];
  private readonly checkpoints: RecordedCheckpoint[] = [];
  private readonly changes: ConfigChange[] = [];

  constructor(
    private config: RunConfig,
    private provenance: RecordProvenance,
  ) {}

  /** Steps whose metrics are recorded. */
  get stepCount(): number {
    return this.steps.length;
  }

  /** A step's metrics (and, with `rollouts`, its rollouts with every per-token channel). */
  addStep(r: RecordableStep, rollouts = true): void {
    const step = r.metrics.step;
    this.steps.push({
      step,
      metrics: r.metrics,
      ...(r.difficulty ? { difficulty: r.difficulty } : {}),
      ...(r.advantageHistogram ? { advantage_histogram: r.advantageHistogram } : {}),
    });
    if (rollouts && r.rollouts.length) this.packed.push(packStep(step, r.rollouts));
  }

  /** Metrics known without their step's details (a run resumed from a snapshot: its earlier steps). */
  addMetrics(metrics: StepMetrics[]): void {
    for (const m of metrics) this.steps.push({ step: m.step, metrics: m });
  }

  /** A held-out evaluation (one per step; a repeat replaces the earlier one). */
  addEval(e: RecordedEval): void {
    const i = this.evals.findIndex((x) => x.step === e.step);
    if (i >= 0) this.evals[i] = e;
    else this.evals.push(e);
  }

  addCheckpoint(step: number, manifest: Manifest, safetensors: Uint8Array): void {
    this.checkpoints.push({ step, manifest, safetensors });
  }

  /** A note on provenance (a resumed run, a warm start); `config` replaces the recorded one only before any step. */
  update(config: RunConfig, note?: string): void {
    if (!this.steps.length) this.config = config;
    if (note !== undefined)
      this.provenance = { ...this.provenance, note: this.provenance.note ? `${this.provenance.note}; ${note}` : note };
  }

  /** Knobs changed between steps (live): the record keeps the config the run started with and each change. */
  configChanged(afterStep: number, config: RunConfig, fields: string[]): void {
    this.changes.push({
      step: afterStep,
      changed: Object.fromEntries(fields.map((k) => [k, config[k as keyof RunConfig]])) as Partial<RunConfig>,
    });
  }

  /** The file's bytes (gzip); `extra` checkpoints go into this file only (e.g. the current weights). */
  async encode(extra: RecordedCheckpoint[] = []): Promise<Uint8Array> {
    return gzip(this.payload(extra));
  }

  private payload(extra: RecordedCheckpoint[]): Uint8Array {
    // Binary section: each channel over every step, then checkpoints; offsets are bytes into the section.
    const parts: Uint8Array[] = [];
    let offset = 0;
    const place = (bytes: Uint8Array): { offset: number; length: number } => {
      const at = { offset, length: bytes.length };
      parts.push(bytes);
      offset += bytes.length;
      const pad = (4 - (offset % 4)) % 4;
      if (pad) {
        parts.push(new Uint8Array(pad));
        offset += pad;
      }
      return at;
    };
    const channels: Record<string, { type: string; count: number; offset: number; length: number }> = {};
    let maxTokenId = 0;
    for (const p of this.packed) for (const id of p.channels.tokens) maxTokenId = Math.max(maxTokenId, id);
    for (const name of channelNames) {
      const type: ChannelType = name === 'tokens' && maxTokenId > 0xffff ? 'u32' : channelType[name];
      // Token ids are packed as u32; a u16 file keeps their low halves.
      const narrow = name === 'tokens' && type === 'u16';
      const arrays = this.packed.map((p) => (narrow ? Uint16Array.from(p.channels.tokens) : p.channels[name]));
      const count = arrays.reduce((a, x) => a + x.length, 0);
      const width = widthOf(type);
      const raw = new Uint8Array(count * width);
      let at = 0;
      for (const x of arrays) {
        raw.set(new Uint8Array(x.buffer, x.byteOffset, x.byteLength), at);
        at += x.byteLength;
      }
      channels[name] = { type, count, ...place(width > 1 ? toPlanes(raw, width) : raw) };
    }
    const header = {
      format: RUN_RECORD_FORMAT,
      version: recordVersion(this.provenance, maxTokenId),
      config: this.config,
      config_changes: this.changes,
      provenance: this.provenance,
      metric_keys: metricKeys,
      steps: this.steps.map((s) => ({ ...s, metrics: metricsOut(s.metrics) })),
      evals: this.evals,
      channels,
      checkpoints: [...this.checkpoints, ...extra].map((c) => ({
        step: c.step,
        manifest: c.manifest,
        ...place(c.safetensors),
      })),
    };
    // The rollouts' JSON was written as each step arrived: spliced in as text.
    const rollouts = this.packed.map((p) => `{"step":${p.step},"records":${p.meta}}`).join(',');
    const headerBytes = new TextEncoder().encode(`${JSON.stringify(header).slice(0, -1)},"rollouts":[${rollouts}]}`);
    const headPad = (4 - ((MAGIC.length + 4 + headerBytes.length) % 4)) % 4;
    const out = new Uint8Array(MAGIC.length + 4 + headerBytes.length + headPad + offset);
    out.set(new TextEncoder().encode(MAGIC), 0);
    new DataView(out.buffer).setUint32(MAGIC.length, headerBytes.length, true);
    out.set(headerBytes, MAGIC.length + 4);
    let at = MAGIC.length + 4 + headerBytes.length + headPad;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

/** The bytes of a record held in memory (the same writer: a recorder fed the record's parts). */
export function encodeRunRecord(r: RunRecord): Promise<Uint8Array> {
  const rec = new RunRecorder(r.config, r.provenance);
  for (const c of r.config_changes) rec.configChanged(c.step, { ...r.config, ...c.changed }, Object.keys(c.changed));
  const rolloutsAt = new Map(r.rollouts.map((x) => [x.step, x.records]));
  for (const s of r.steps) {
    const records = rolloutsAt.get(s.step);
    rec.addStep(
      {
        metrics: s.metrics,
        difficulty: s.difficulty,
        advantageHistogram: s.advantage_histogram,
        rollouts: records ?? [],
      },
      !!records,
    );
    rolloutsAt.delete(s.step);
  }
  if (rolloutsAt.size) throw new Error(`run record: rollouts of step ${[...rolloutsAt.keys()][0]} have no metrics`);
  for (const e of r.evals) rec.addEval(e);
  for (const c of r.checkpoints) rec.addCheckpoint(c.step, c.manifest, c.safetensors);
  return rec.encode();
}

/** Splits little-endian words into byte planes (all first bytes, then all second bytes...): gzip compresses floats far better so. */
function toPlanes(raw: Uint8Array, width: number): Uint8Array {
  const n = raw.length / width;
  const out = new Uint8Array(raw.length);
  for (let p = 0; p < width; p++) for (let i = 0; i < n; i++) out[p * n + i] = raw[i * width + p]!;
  return out;
}

function fromPlanes(planes: Uint8Array, width: number): Uint8Array {
  const n = planes.length / width;
  const out = new Uint8Array(planes.length);
  for (let p = 0; p < width; p++) for (let i = 0; i < n; i++) out[i * width + p] = planes[p * n + i]!;
  return out;
}

// ---- gzip ---------------------------------------------------------------------------------------

/**
 * Reads a byte stream to its end, refusing it (cancelled, `refuse(total)` thrown) as soon as it holds
 * more than `limit` bytes: the reader's gzip cap here, a download's size cap in the page
 * (src/ui/recording.ts).
 */
export async function readCapped(
  reader: ByteStreamReader,
  limit: number,
  refuse: (total: number) => Error,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw refuse(total);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

async function pipe(stream: ByteTransformStream, input: Uint8Array, maxOut: number): Promise<Uint8Array> {
  const writer = stream.writable.getWriter();
  const writing = writer.write(input).then(() => writer.close());
  writing.catch(() => undefined); // a failure shows on the reading side
  const out = await readCapped(
    stream.readable.getReader(),
    maxOut,
    () => new RunRecordError(`it decompresses to more than ${mb(maxOut)}; refused`),
  );
  await writing;
  return out;
}

const gzip = (bytes: Uint8Array) => pipe(new CompressionStream('gzip'), bytes, Number.MAX_SAFE_INTEGER);

/** A byte count in megabytes, as the refusals word it. */
export const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(n < 1024 * 1024 ? 2 : 0)} MB`;

// ---- the reader ---------------------------------------------------------------------------------

/** What is wrong with a file that is not a readable run record. */
export class RunRecordError extends Error {
  constructor(message: string) {
    super(`not a readable run record: ${message}`);
  }
}

export type DecodeResult = { ok: true; record: RunRecord; notes: string[] } | { ok: false; error: string };

export interface DecodeLimits {
  maxBytes?: number;
  maxUnpacked?: number;
}

/**
 * Reads a run record's bytes, or says what is wrong: too big, not gzip, truncated or corrupt, not a
 * run record, from a newer format version, bad JSON, a field of the wrong type, NaN where a number
 * must be finite, a prototype-pollution key. Strings stay data (nothing here renders them).
 * `notes` lists what was read but is not understood (metric keys this build does not know).
 */
export async function decodeRunRecord(bytes: Uint8Array, limits: DecodeLimits = {}): Promise<DecodeResult> {
  try {
    return { ok: true, ...(await readRunRecord(bytes, limits)) };
  } catch (e) {
    if (e instanceof RunRecordError) return { ok: false, error: e.message };
    return { ok: false, error: new RunRecordError(e instanceof Error ? e.message : String(e)).message };
  }
}

/** decodeRunRecord that throws a RunRecordError. */
export async function readRunRecord(
  bytes: Uint8Array,
  limits: DecodeLimits = {},
): Promise<{ record: RunRecord; notes: string[] }> {
  const maxBytes = limits.maxBytes ?? RUN_RECORD_MAX_BYTES;
  if (bytes.length >= maxBytes)
    throw new RunRecordError(`the file is ${mb(bytes.length)}; records of ${mb(maxBytes)} or more are refused`);
  if (bytes.length === 0) throw new RunRecordError('the file is empty');
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b)
    throw new RunRecordError('it is not gzip-compressed (a run record starts with the gzip bytes 1f 8b)');
  let raw: Uint8Array;
  try {
    raw = await pipe(new DecompressionStream('gzip'), bytes, limits.maxUnpacked ?? RUN_RECORD_MAX_UNPACKED);
  } catch (e) {
    if (e instanceof RunRecordError) throw e;
    const why = e instanceof Error ? e.message : String(e);
    throw new RunRecordError(
      /end of (file|stream)|unexpected end|truncat|incomplete/i.test(why)
        ? `the file is truncated (the gzip stream ends early: ${why})`
        : `the gzip data is corrupt (${why})`,
    );
  }
  const magic = new TextEncoder().encode(MAGIC);
  if (raw.length < magic.length + 4 || magic.some((b, i) => raw[i] !== b))
    throw new RunRecordError('the gzip data is not a run record (it does not start with "rlvr-run-record")');
  const headerLength = new DataView(raw.buffer, raw.byteOffset, raw.byteLength).getUint32(magic.length, true);
  const headerStart = magic.length + 4;
  if (headerStart + headerLength > raw.length)
    throw new RunRecordError(
      `the file is truncated: its header needs ${headerLength} bytes, ${raw.length - headerStart} are left`,
    );
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw.subarray(headerStart, headerStart + headerLength));
  } catch {
    throw new RunRecordError('its header is not valid UTF-8');
  }
  let header: unknown;
  try {
    header = JSON.parse(text, (key, value: unknown) => {
      if (key === '__proto__' || key === 'constructor' || key === 'prototype')
        throw new RunRecordError(`it contains the key "${key}", which is refused (it could alter objects' prototypes)`);
      return value;
    });
  } catch (e) {
    if (e instanceof RunRecordError) throw e;
    throw new RunRecordError(`its header is not valid JSON (${(e as Error).message})`);
  }
  const padded = headerStart + headerLength + ((4 - ((headerStart + headerLength) % 4)) % 4);
  return parseHeader(header, raw.subarray(Math.min(padded, raw.length)));
}

// Field checks: each names the path of the field and what it holds.
type Obj = Record<string, unknown>;
const show = (v: unknown) =>
  typeof v === 'string'
    ? JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)
    : Array.isArray(v)
      ? 'a list'
      : v === null
        ? 'null'
        : typeof v === 'object'
          ? 'an object'
          : String(v);
const bad = (path: string, want: string, v: unknown): never => {
  throw new RunRecordError(`${path} must be ${want}, got ${show(v)}`);
};
const obj = (v: unknown, path: string): Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : bad(path, 'an object', v);
const list = (v: unknown, path: string): unknown[] => (Array.isArray(v) ? v : bad(path, 'a list', v));
const str = (v: unknown, path: string): string => (typeof v === 'string' ? v : bad(path, 'a string', v));
const bool = (v: unknown, path: string): boolean => (typeof v === 'boolean' ? v : bad(path, 'true or false', v));
const finite = (v: unknown, path: string): number =>
  typeof v === 'number' && Number.isFinite(v) ? v : bad(path, 'a finite number', v);
const count = (v: unknown, path: string): number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : bad(path, 'a whole number >= 0', v);
/** A number that may be non-finite (written as "NaN", "Infinity", "-Infinity"). */
const anyNumber = (v: unknown, path: string): number => {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return bad(path, 'a number (or "NaN", "Infinity", "-Infinity")', v);
};
const numberMap = (v: unknown, path: string, each: (x: unknown, p: string) => number): Record<string, number> => {
  const o = obj(v, path);
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, each(x, `${path}[${JSON.stringify(k)}]`)]));
};

/** provenance.base: a playground manifest, or (version 2) a model from elsewhere. */
function parseBase(v: unknown, version: number): RecordBase {
  const base = obj(v, 'provenance.base');
  const name = str(base.name, 'provenance.base.name');
  if (base.manifest === undefined && base.model !== undefined) {
    if (version < 2) bad('provenance.base.manifest of a version-1 file', 'a playground manifest', base.manifest);
    const m = obj(base.model, 'provenance.base.model');
    const at = (k: string) => `provenance.base.model.${k}`;
    const model: ForeignModel = {
      architecture: str(m.architecture, at('architecture')),
      model_type: str(m.model_type, at('model_type')),
      vocab_size: count(m.vocab_size, at('vocab_size')),
      tokenizer: str(m.tokenizer, at('tokenizer')),
    };
    if (m.parameters !== undefined) model.parameters = count(m.parameters, at('parameters'));
    return { name, model };
  }
  try {
    return { name, manifest: validateManifest(base.manifest) };
  } catch (e) {
    throw new RunRecordError(`provenance.base.${(e as Error).message}`);
  }
}

function parseHeader(h: unknown, blob: Uint8Array): { record: RunRecord; notes: string[] } {
  const o = obj(h, 'the header');
  if (o.format !== RUN_RECORD_FORMAT)
    throw new RunRecordError(`"format" is ${show(o.format)}, expected "${RUN_RECORD_FORMAT}"`);
  const version = count(o.version, 'version');
  if (version > RUN_RECORD_VERSION)
    throw new RunRecordError(
      `it is format version ${version}, newer than this playground reads (up to version ${RUN_RECORD_VERSION}); open it with a newer playground`,
    );
  if (version < 1) throw new RunRecordError(`version ${version} does not exist`);
  const notes: string[] = [];

  let config: RunConfig;
  try {
    config = validateConfig(obj(o.config, 'config'));
  } catch (e) {
    throw new RunRecordError(`config: ${(e as Error).message}`);
  }
  let inForce = config;
  const config_changes = (o.config_changes === undefined ? [] : list(o.config_changes, 'config_changes')).map(
    (v, i): ConfigChange => {
      const c = obj(v, `config_changes[${i}]`);
      const changed = obj(c.changed, `config_changes[${i}].changed`);
      try {
        inForce = validateConfig({ ...inForce, ...changed });
      } catch (e) {
        throw new RunRecordError(`config_changes[${i}].changed: ${(e as Error).message}`);
      }
      return { step: count(c.step, `config_changes[${i}].step`), changed: changed as Partial<RunConfig> };
    },
  );
  const p = obj(o.provenance, 'provenance');
  if (!recordWriters.includes(p.writer as never))
    bad('provenance.writer', recordWriters.map((w) => `"${w}"`).join(' or '), p.writer);
  if (version < 2 && !version1Writers.includes(p.writer as RecordWriter)) {
    bad('provenance.writer of a version-1 file', version1Writers.map((w) => `"${w}"`).join(' or '), p.writer);
  }
  const provenance: RecordProvenance = {
    writer: p.writer as RecordProvenance['writer'],
    command: str(p.command, 'provenance.command'),
    created: str(p.created, 'provenance.created'),
    base: parseBase(p.base, version),
  };
  if (p.lesson !== undefined) {
    const l = obj(p.lesson, 'provenance.lesson');
    provenance.lesson = {
      id: str(l.id, 'provenance.lesson.id'),
      arm: str(l.arm, 'provenance.lesson.arm'),
      seed: count(l.seed, 'provenance.lesson.seed'),
    };
  }
  if (p.note !== undefined) provenance.note = str(p.note, 'provenance.note');

  const metric_keys = list(o.metric_keys, 'metric_keys').map((k, i) => str(k, `metric_keys[${i}]`));
  const unknown = new Set<string>();
  const steps = list(o.steps, 'steps').map((v, i): RecordedStep => {
    const at = `steps[${i}]`;
    const s = obj(v, at);
    const step = count(s.step, `${at}.step`);
    const m = obj(s.metrics, `${at}.metrics`);
    const metrics = { ...numberMap(m, `${at}.metrics`, anyNumber), step } as StepMetrics;
    if (m.step !== step) bad(`${at}.metrics.step`, `the step's number ${step}`, m.step);
    for (const k of Object.keys(m)) if (k !== 'step' && !isMetricKey(k)) unknown.add(k);
    const out: RecordedStep = { step, metrics };
    if (s.difficulty !== undefined) {
      const d = obj(s.difficulty, `${at}.difficulty`);
      out.difficulty = Object.fromEntries(
        Object.entries(d).map(([k, x]) => [k, typeof x === 'string' ? x : finite(x, `${at}.difficulty.${k}`)]),
      );
    }
    if (s.advantage_histogram !== undefined) {
      const hh = obj(s.advantage_histogram, `${at}.advantage_histogram`);
      out.advantage_histogram = {
        edges: list(hh.edges, `${at}.advantage_histogram.edges`).map((x, j) =>
          finite(x, `${at}.advantage_histogram.edges[${j}]`),
        ),
        counts: list(hh.counts, `${at}.advantage_histogram.counts`).map((x, j) =>
          count(x, `${at}.advantage_histogram.counts[${j}]`),
        ),
      };
    }
    return out;
  });
  if (unknown.size)
    notes.push(`metric keys this playground does not know (kept, not charted): ${[...unknown].sort().join(', ')}`);
  const stepSet = new Set(steps.map((s) => s.step));

  const evals = list(o.evals, 'evals').map((v, i): RecordedEval => {
    const e = obj(v, `evals[${i}]`);
    const se = e.pass1_se === undefined ? undefined : finite(e.pass1_se, `evals[${i}].pass1_se`);
    return {
      step: count(e.step, `evals[${i}].step`),
      pass_at_k: numberMap(e.pass_at_k, `evals[${i}].pass_at_k`, finite),
      ...(se === undefined ? {} : { pass1_se: se }),
    };
  });

  // Channels: where each lies in the binary section, checked against its size.
  const chs = obj(o.channels, 'channels');
  const data = {} as Record<ChannelName, Uint8Array | Uint16Array | Uint32Array | Float32Array>;
  for (const name of channelNames) {
    const c = obj(chs[name], `channels.${name}`);
    const wide = name === 'tokens' && version >= 2 && c.type === 'u32';
    if (c.type !== channelType[name] && !wide) {
      const also = name === 'tokens' && version >= 2 ? ' or "u32"' : '';
      bad(`channels.${name}.type`, `"${channelType[name]}"${also}`, c.type);
    }
    const type: ChannelType = wide ? 'u32' : channelType[name];
    const n = count(c.count, `channels.${name}.count`);
    const off = count(c.offset, `channels.${name}.offset`);
    const width = widthOf(type);
    if (count(c.length, `channels.${name}.length`) !== n * width)
      bad(`channels.${name}.length`, `${n * width} (count × ${width})`, c.length);
    if (off + n * width > blob.length)
      throw new RunRecordError(
        `the file is truncated: channel "${name}" needs bytes up to ${off + n * width} of the binary section, which has ${blob.length}`,
      );
    const bytes = blob.slice(off, off + n * width);
    const plain = width > 1 ? fromPlanes(bytes, width) : bytes;
    const { buffer } = plain;
    if (type === 'f32') data[name] = new Float32Array(buffer);
    else if (type === 'u32') data[name] = new Uint32Array(buffer);
    else if (type === 'u16') data[name] = new Uint16Array(buffer);
    else data[name] = plain;
  }
  const cursor = { tokens: 0, oldLogp: 0, refLogp: 0, scored: 0 };
  const take = (name: ChannelName, from: number, n: number): number[] => {
    const arr = data[name];
    if (from + n > arr.length)
      throw new RunRecordError(`the rollouts need more "${name}" values than the record holds (${arr.length})`);
    return Array.from(arr.subarray(from, from + n));
  };
  const rollouts = list(o.rollouts, 'rollouts').map((v, i) => {
    const at = `rollouts[${i}]`;
    const r = obj(v, at);
    const step = count(r.step, `${at}.step`);
    if (!stepSet.has(step)) throw new RunRecordError(`${at}: step ${step} has rollouts but no metrics`);
    const records = list(r.records, `${at}.records`).map((x, j): RolloutRecord => {
      const rp = `${at}.records[${j}]`;
      const m = obj(x, rp);
      const n = count(m.n, `${rp}.n`);
      const oN = count(m.o, `${rp}.o`);
      const sN = count(m.m, `${rp}.m`);
      const ref = bool(m.ref, `${rp}.ref`);
      const tokenText = list(m.tokenText, `${rp}.tokenText`).map((t, k) => str(t, `${rp}.tokenText[${k}]`));
      if (tokenText.length !== n) bad(`${rp}.tokenText`, `${n} token texts`, `${tokenText.length}`);
      const flipped = m.flipped;
      if (flipped !== null && flipped !== 'fn' && flipped !== 'fp') bad(`${rp}.flipped`, 'null, "fn" or "fp"', flipped);
      const s0 = cursor.scored;
      const scored = (name: (typeof scoredFloat)[number]) => take(name, s0, sN);
      const rec: RolloutRecord = {
        step,
        group: count(m.group, `${rp}.group`),
        index: count(m.index, `${rp}.index`),
        prompt: str(m.prompt, `${rp}.prompt`),
        hint: str(m.hint, `${rp}.hint`),
        tokens: take('tokens', cursor.tokens, n),
        tokenText,
        completion: str(m.completion, `${rp}.completion`),
        oldLogp: take('oldLogp', cursor.oldLogp, oN),
        newLogp: scored('newLogp'),
        refLogp: ref ? take('refLogp', cursor.refLogp, sN) : null,
        ratio: scored('ratio'),
        clipped: take('clipped', s0, sN).map((c, k) =>
          c === 0 ? null : c === 1 ? 'low' : c === 2 ? 'high' : bad(`${rp}.clipped[${k}]`, '0, 1 or 2', c),
        ),
        entropy: scored('entropy'),
        kl: scored('kl'),
        advantage: anyNumber(m.advantage, `${rp}.advantage`),
        objective: scored('objective'),
        tokenLoss: scored('tokenLoss'),
        weight: scored('weight'),
        lossContribution: scored('lossContribution'),
        trained: take('trained', s0, sN).map((t) => t !== 0),
        reward: anyNumber(m.reward, `${rp}.reward`),
        components: numberMap(m.components, `${rp}.components`, anyNumber),
        correct: bool(m.correct, `${rp}.correct`),
        reason: str(m.reason, `${rp}.reason`),
        truncated: bool(m.truncated, `${rp}.truncated`),
        hinted: bool(m.hinted, `${rp}.hinted`),
        flipped: flipped as RolloutRecord['flipped'],
      };
      cursor.tokens += n;
      cursor.oldLogp += oN;
      cursor.scored += sN;
      if (ref) cursor.refLogp += sN;
      return rec;
    });
    return { step, records };
  });
  const used: [ChannelName, number][] = [
    ['tokens', cursor.tokens],
    ['oldLogp', cursor.oldLogp],
    ['refLogp', cursor.refLogp],
    ['ratio', cursor.scored],
  ];
  for (const [name, n] of used)
    if (data[name].length !== n)
      throw new RunRecordError(`channel "${name}" holds ${data[name].length} values but the rollouts use ${n}`);

  const checkpoints = list(o.checkpoints, 'checkpoints').map((v, i): RecordedCheckpoint => {
    const at = `checkpoints[${i}]`;
    const c = obj(v, at);
    const off = count(c.offset, `${at}.offset`);
    const len = count(c.length, `${at}.length`);
    if (off + len > blob.length)
      throw new RunRecordError(
        `the file is truncated: checkpoint ${i} needs bytes up to ${off + len} of the binary section, which has ${blob.length}`,
      );
    let manifest: Manifest;
    try {
      manifest = validateManifest(c.manifest);
    } catch (e) {
      throw new RunRecordError(`${at}.${(e as Error).message}`);
    }
    return { step: count(c.step, `${at}.step`), manifest, safetensors: blob.slice(off, off + len) };
  });

  return {
    record: {
      format: RUN_RECORD_FORMAT,
      version,
      config,
      config_changes,
      provenance,
      metric_keys,
      steps,
      evals,
      rollouts,
      checkpoints,
    },
    notes,
  };
}

/**
 * The same run with the rollouts of fewer steps: those of the first recorded step, every `every`-th
 * recorded step after it, and the last (metrics, evaluations and checkpoints are all kept). The
 * shipped lesson records are thinned so (scripts/record-lessons.sh): a 150-step arm with every
 * rollout is about 3.6 MB. The provenance note says what was dropped, so the page can say it.
 */
export function thinRunRecord(r: RunRecord, every: number): RunRecord {
  if (!Number.isInteger(every) || every < 1)
    throw new RangeError(`keep the rollouts of every N-th step: N must be a whole number of 1 or more, got ${every}`);
  if (every === 1 || r.rollouts.length <= 2) return r;
  const last = r.rollouts.length - 1;
  const rollouts = r.rollouts.filter((_, i) => i % every === 0 || i === last);
  const note = `rollouts kept for ${rollouts.length} of the ${r.rollouts.length} recorded steps (every ${every}th, and the last); every step's metrics are kept`;
  return {
    ...r,
    rollouts,
    provenance: { ...r.provenance, note: r.provenance.note ? `${r.provenance.note}; ${note}` : note },
  };
}
