// The run record's one writer (RunRecorder); the format is described in format.ts.
import type { Manifest } from '../model/checkpoint.ts';
import type { RunConfig } from '../rl/config.ts';
import { metricKeys } from '../rl/metrics.ts';
import type { RolloutRecord } from '../rl/rollout.ts';
import type { StepMetrics } from '../rl/step-records.ts';
import {
  type ChannelName,
  channelNames,
  channelType,
  type ChannelType,
  clipCode,
  type ConfigChange,
  MAGIC,
  type RecordableStep,
  type RecordedCheckpoint,
  type RecordedEval,
  type RecordedStep,
  type RecordProvenance,
  recordVersion,
  type RolloutMeta,
  RUN_RECORD_FORMAT,
  type RunRecord,
  scoredFloat,
  toPlanes,
  widthOf,
} from './format.ts';
import { gzip } from './gzip.ts';

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
  const note =
    `rollouts kept for ${rollouts.length} of the ${r.rollouts.length} recorded steps (every ${every}th, and ` +
    `the last); every step's metrics are kept`;
  return {
    ...r,
    rollouts,
    provenance: { ...r.provenance, note: r.provenance.note ? `${r.provenance.note}; ${note}` : note },
  };
}
