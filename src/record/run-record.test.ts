// The run record's writer and reader: a real run's record round-trips, and every kind of bad file is
// refused with a message naming what is wrong.
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import {
  decodeRunRecord,
  encodeRunRecord,
  RUN_RECORD_MAX_BYTES,
  RUN_RECORD_VERSION,
  RunRecorder,
  type RunRecord,
} from './run-record.ts';
import { loadBase, TrainingRun } from '../rl/run.ts';
import { resolveOrThrow } from '../rl/resolve-config.ts';
import type { RolloutRecord } from '../rl/rollout.ts';

/** The user's choices over the checkpoint's recipe, through the one resolver. */
const resolveUser = (user: Record<string, unknown>, manifest: Parameters<typeof resolveOrThrow>[0]['manifest']) =>
  resolveOrThrow({ manifest, layers: [{ source: { kind: 'edited' }, values: user }] });

const dir = 'public/checkpoints/sat-tiny';
const manifestJson = JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8'));
const weightBytes = new Uint8Array(readFileSync(`${dir}/model.safetensors`));
const HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>';

let record: RunRecord;
let bytes: Uint8Array;

/** A real 3-step run (μ = 2, so ratios move and clipping can happen), recorded by the writer. */
beforeAll(async () => {
  const base = loadBase(manifestJson, weightBytes);
  const config = resolveUser(
    {
      task: 'sat',
      prompts_per_step: 2,
      num_generations: 4,
      max_completion_length: 24,
      num_iterations: 2,
      beta: 0.02,
      eval_every: 2,
      eval_prompts: 2,
      seed: 3,
    },
    base.manifest,
  );
  const run = await TrainingRun.create(createNodeBackend(1), base, config);
  try {
    const rec = new RunRecorder(config, {
      writer: 'rlvr train',
      command: 'run-record.test',
      created: '2026-01-01T00:00:00.000Z',
      base: { name: base.manifest.name, manifest: base.manifest },
    });
    const baseBytes = await run.weightBytes('base');
    rec.addCheckpoint(0, base.manifest, baseBytes);
    while (run.step < 3) {
      const { result, evals } = await run.advance(3);
      // A hostile prompt: kept as the exact string, never interpreted.
      result.rollouts[0]!.prompt = HOSTILE + result.rollouts[0]!.prompt;
      rec.addStep(result);
      for (const e of evals) rec.addEval(e);
    }
    bytes = await rec.encode();
    const steps = run.metrics.map((m) => ({ step: m.step, metrics: m }));
    record = {
      format: 'rlvr-playground-run-record',
      version: RUN_RECORD_VERSION,
      config,
      provenance: {
        writer: 'rlvr train',
        command: 'run-record.test',
        created: '2026-01-01T00:00:00.000Z',
        base: { name: base.manifest.name, manifest: base.manifest },
      },
      config_changes: [],
      metric_keys: [],
      steps,
      evals: run.evals,
      rollouts: [],
      checkpoints: [],
    };
    // The trainer's own rollouts of each step (the history keeps all 3).
    record.rollouts = [1, 2, 3].map((s) => ({ step: s, records: run.trainer.history.get(s)! }));
    record.checkpoints = [{ step: 0, manifest: base.manifest, safetensors: baseBytes }];
  } finally {
    await run.dispose();
  }
}, 300_000);

/** The record's header after gunzip, rewritten, gzipped again (to make bad files from a good one). */
function rewrite(b: Uint8Array, edit: (header: string) => string, cutBinary = 0): Uint8Array {
  const raw = gunzipSync(b);
  const len = raw.readUInt32LE(16);
  const header = edit(raw.subarray(20, 20 + len).toString('utf8'));
  const rest = raw.subarray(20 + len + ((4 - ((20 + len) % 4)) % 4));
  const hb = Buffer.from(header, 'utf8');
  const pad = (4 - ((20 + hb.length) % 4)) % 4;
  const lenBuf = Buffer.alloc(4);
  lenBuf.writeUInt32LE(hb.length);
  return new Uint8Array(
    gzipSync(
      Buffer.concat([raw.subarray(0, 16), lenBuf, hb, Buffer.alloc(pad), rest.subarray(0, rest.length - cutBinary)]),
    ),
  );
}

const f32 = (xs: number[]) => Array.from(new Float32Array(xs));
const asStored = (r: RolloutRecord): RolloutRecord => ({ ...r, oldLogp: f32(r.oldLogp), weight: f32(r.weight) });

async function errorOf(b: Uint8Array, limits = {}): Promise<string> {
  const r = await decodeRunRecord(b, limits);
  if (r.ok) throw new Error('decoded a bad record');
  return r.error;
}

describe('run record: round trip', () => {
  it(
    'a real run: record → encode → decode gives the same config, metrics, evaluations, rollouts (every ' +
      'per-token channel) and checkpoint',
    async () => {
      const r = await decodeRunRecord(bytes);
      if (!r.ok) throw new Error(r.error);
      const got = r.record;
      expect(r.notes).toEqual([]);
      expect(got.config).toEqual(record.config);
      expect(got.provenance).toEqual(record.provenance);
      expect(got.steps.map((s) => s.metrics)).toEqual(record.steps.map((s) => s.metrics));
      expect(got.steps.every((s) => s.difficulty && s.advantage_histogram)).toBe(true);
      expect(got.evals).toEqual(record.evals);
      expect(got.evals.map((e) => e.step)).toEqual([0, 2, 3]);
      expect(got.checkpoints).toHaveLength(1);
      // Byte arrays compared as one boolean (a diff of a megabyte of bytes would take forever to print).
      expect(Buffer.compare(got.checkpoints[0]!.safetensors, record.checkpoints[0]!.safetensors)).toBe(0);
      expect(got.rollouts.map((x) => x.step)).toEqual([1, 2, 3]);
      const want = record.rollouts.flatMap((x) => x.records);
      const have = got.rollouts.flatMap((x) => x.records);
      expect(have).toHaveLength(want.length);
      // The graph computes in float32, so its per-token numbers come back exactly; the two the host
      // computes in float64 (the sampler's old log-probs, the aggregation weight) come back as float32.
      // One record at a time, so a failure prints one record's diff.
      for (let i = 0; i < want.length; i++) expect(have[i]).toEqual(asStored(want[i]!));
      expect(have[0]!.prompt.startsWith(HOSTILE)).toBe(true);
      // The run really exercised the channels: some refLogp present, some ratios off 1.
      expect(have.some((x) => x.refLogp !== null)).toBe(true);
      expect(have.some((x) => x.ratio.some((q) => Math.abs(q - 1) > 1e-6))).toBe(true);
    },
  );

  it(
    'encodeRunRecord (a record in memory) writes what ' + 'the recorder wrote, and non-finite metrics survive',
    async () => {
      const r = await decodeRunRecord(await encodeRunRecord(record));
      if (!r.ok) throw new Error(r.error);
      const have = r.record.rollouts.flatMap((x) => x.records);
      const want = record.rollouts.flatMap((x) => x.records);
      expect(have).toHaveLength(want.length);
      for (let i = 0; i < want.length; i++) expect(have[i]).toEqual(asStored(want[i]!));
      const skipped = {
        ...record,
        steps: [{ step: 1, metrics: { ...record.steps[0]!.metrics, grad_norm: NaN, loss: Infinity } }],
        rollouts: [],
      };
      const s = await decodeRunRecord(await encodeRunRecord(skipped));
      if (!s.ok) throw new Error(s.error);
      expect(s.record.steps[0]!.metrics.grad_norm).toBeNaN();
      expect(s.record.steps[0]!.metrics.loss).toBe(Infinity);
    },
  );

  it(
    "an evaluation's pass@1 standard error (the held-out chart's band) survives the round trip; a NaN one " +
      'is refused',
    async () => {
      const withSe = await encodeRunRecord({
        ...record,
        rollouts: [],
        checkpoints: [],
        evals: [{ step: 0, pass_at_k: { '1': 0.25 }, pass1_se: 0.031 }],
      });
      const r = await decodeRunRecord(withSe);
      if (!r.ok) throw new Error(r.error);
      expect(r.record.evals).toEqual([{ step: 0, pass_at_k: { '1': 0.25 }, pass1_se: 0.031 }]);
      expect(await errorOf(rewrite(withSe, (h) => h.replace('"pass1_se":0.031', '"pass1_se":"NaN"')))).toMatch(
        /evals\[0\]\.pass1_se/,
      );
    },
  );

  it('a 3-step record is small: well under 1 MB compressed', () => {
    expect(bytes.length).toBeLessThan(1024 * 1024);
  });
});

describe('run record: bad input is refused with a message naming what is wrong', () => {
  it('truncated file', async () => {
    expect(await errorOf(bytes.slice(0, Math.floor(bytes.length / 2)))).toMatch(/truncated/);
    expect(await errorOf(bytes.slice(0, 10))).toMatch(/truncated/);
  });

  it('truncated inside (a whole gzip stream whose binary section is cut)', async () => {
    // The checkpoint's bytes come last: cutting the end cuts the checkpoint; without one, a channel.
    expect(await errorOf(rewrite(bytes, (h) => h, 4096))).toMatch(/truncated: checkpoint 0 needs bytes up to/);
    const noCheckpoint = await encodeRunRecord({ ...record, checkpoints: [] });
    expect(await errorOf(rewrite(noCheckpoint, (h) => h, 64))).toMatch(/truncated: channel "\w+" needs bytes up to/);
  });

  it('not gzip (e.g. a metrics.jsonl picked by mistake)', async () => {
    expect(await errorOf(new TextEncoder().encode('{"step":0,"eval":{"1":0.2}}\n{"step":1,"reward":0.5}\n'))).toMatch(
      /not gzip/,
    );
    expect(await errorOf(new Uint8Array(0))).toMatch(/empty/);
  });

  it('corrupt gzip (bytes flipped in the middle)', async () => {
    const b = bytes.slice();
    for (let i = 100; i < 140; i++) b[i] = b[i]! ^ 0xa5;
    expect(await errorOf(b)).toMatch(/corrupt|truncated/);
  });

  it('gzip of something else', async () => {
    expect(await errorOf(new Uint8Array(gzipSync(Buffer.from('hello world, not a record'))))).toMatch(
      /not a run record/,
    );
  });

  it('bad JSON in the header', async () => {
    expect(await errorOf(rewrite(bytes, (h) => h.slice(0, -10)))).toMatch(/header is not valid JSON/);
  });

  it('a newer format version names both versions', async () => {
    const e = await errorOf(rewrite(bytes, (h) => h.replace(`"version":1,`, `"version":${RUN_RECORD_VERSION + 1},`)));
    expect(e).toMatch(new RegExp(`version ${RUN_RECORD_VERSION + 1}, newer .*up to version ${RUN_RECORD_VERSION}`));
  });

  it('another format', async () => {
    expect(
      await errorOf(rewrite(bytes, (h) => h.replace('"rlvr-playground-run-record"', '"rlvr-playground-checkpoint"'))),
    ).toMatch(/"format" is "rlvr-playground-checkpoint"/);
  });

  it(`huge: a file of ${RUN_RECORD_MAX_BYTES / 1024 / 1024} MB is refused before decompressing`, async () => {
    const huge = new Uint8Array(RUN_RECORD_MAX_BYTES);
    huge.set(bytes);
    expect(await errorOf(huge)).toMatch(/200 MB; records of 200 MB or more are refused/);
  });

  it('a gzip bomb stops at the unpacked limit', async () => {
    const bomb = new Uint8Array(gzipSync(Buffer.alloc(64 * 1024 * 1024)));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(await errorOf(bomb, { maxUnpacked: 16 * 1024 * 1024 })).toMatch(/decompresses to more than 16 MB/);
  });

  it('hostile: a __proto__ key is refused and pollutes nothing', async () => {
    const e = await errorOf(rewrite(bytes, (h) => h.replace('"reward":', '"__proto__":{"polluted":true},"reward":')));
    expect(e).toMatch(/"__proto__".*refused/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(
      await errorOf(rewrite(bytes, (h) => h.replace('"config":{', '"config":{"constructor":{"prototype":{"x":1}},'))),
    ).toMatch(/"(constructor|prototype)".*refused/);
  });

  it('hostile: NaN where a number must be finite (an evaluation, a config field) names the field', async () => {
    expect(
      await errorOf(
        rewrite(bytes, (h) =>
          h.replace(/"evals":\[\{"step":0,"pass_at_k":\{"1":[^,}]+/, '"evals":[{"step":0,"pass_at_k":{"1":"NaN"'),
        ),
      ),
    ).toMatch(/evals\[0\]\.pass_at_k\["1"\] must be a finite number, got "NaN"/);
    expect(await errorOf(rewrite(bytes, (h) => h.replace(/"learning_rate":[^,}]+/, '"learning_rate":"NaN"')))).toMatch(
      /config: learning_rate: must be a number/,
    );
  });

  it('a live config change is kept, and one that makes the config invalid is refused by field', async () => {
    const changed = await encodeRunRecord({
      ...record,
      rollouts: [],
      checkpoints: [],
      config_changes: [{ step: 1, changed: { learning_rate: 5e-5 } }],
    });
    const r = await decodeRunRecord(changed);
    if (!r.ok) throw new Error(r.error);
    expect(r.record.config_changes).toEqual([{ step: 1, changed: { learning_rate: 5e-5 } }]);
    expect(await errorOf(rewrite(changed, (h) => h.replace('"learning_rate":0.00005', '"learning_rate":-1')))).toMatch(
      /config_changes\[0\]\.changed: learning_rate: must be >= 0, got -1/,
    );
  });

  it('hostile: a field of the wrong type names its path', async () => {
    expect(await errorOf(rewrite(bytes, (h) => h.replace(/"steps":\[\{"step":1/, '"steps":[{"step":"1"')))).toMatch(
      /steps\[0\]\.step must be a whole number >= 0, got "1"/,
    );
    expect(await errorOf(rewrite(bytes, (h) => h.replace(/"prompt":"/, '"prompt":7,"x":"')))).toMatch(
      /rollouts\[0\]\.records\[0\]\.prompt must be a string, got 7/,
    );
  });

  it(
    'a metric key this build does not know is kept and named in the notes (a chart can say so instead of ' +
      'drawing nothing)',
    async () => {
      const r = await decodeRunRecord(rewrite(bytes, (h) => h.replace('"reward":', '"rewrad":1,"reward":')));
      if (!r.ok) throw new Error(r.error);
      expect(r.notes).toEqual(['metric keys this playground does not know (kept, not charted): rewrad']);
    },
  );
});
