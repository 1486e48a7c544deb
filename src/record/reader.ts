// The run record's one reader (decodeRunRecord); the format is described in format.ts.
import { type Manifest, validateManifest } from '../model/checkpoint.ts';
import { type RunConfig, validateConfig } from '../rl/config.ts';
import { isMetricKey } from '../rl/metrics.ts';
import type { RolloutRecord } from '../rl/rollout.ts';
import type { StepMetrics } from '../rl/step-records.ts';
import {
  type ChannelName,
  channelNames,
  channelType,
  type ChannelType,
  type ConfigChange,
  type ForeignModel,
  fromPlanes,
  MAGIC,
  type RecordBase,
  type RecordedCheckpoint,
  type RecordedEval,
  type RecordedStep,
  type RecordProvenance,
  type RecordWriter,
  recordWriters,
  RUN_RECORD_FORMAT,
  RUN_RECORD_MAX_BYTES,
  RUN_RECORD_MAX_UNPACKED,
  RUN_RECORD_VERSION,
  type RunRecord,
  RunRecordError,
  type scoredFloat,
  version1Writers,
  widthOf,
} from './format.ts';
import { mb, pipe } from './gzip.ts';
import { show, bad, obj, list, str, bool, finite, count, anyNumber, numberMap } from './fields.ts';

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
      `it is format version ${version}, newer than this playground reads (up to version ` +
        `${RUN_RECORD_VERSION}); open it with a newer playground`,
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
        `the file is truncated: channel "${name}" needs bytes up to ${off + n * width} of the binary ` +
          `section, which has ${blob.length}`,
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
        `the file is truncated: checkpoint ${i} needs bytes up to ${off + len} of the binary section, ` +
          `which has ${blob.length}`,
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
