// Version 2 of the run record: token ids past 16 bits and a base model from elsewhere (what the
// rlvr_playground Python package writes for a TRL run of any causal LM). A playground run's record
// stays version 1; a version-2 file round-trips; a version-1 file cannot claim version-2 contents;
// and the reader this repository shipped before version 2 (its src/record/run-record.ts at the commit
// that introduced the foreign readers' layer, read with git) refuses a version-2 file by its version.
import { execFileSync, type ExecFileSyncOptionsWithStringEncoding } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../rl/config.ts';
import { decodeRunRecord, encodeRunRecord, RUN_RECORD_VERSION } from './run-record.ts';
import type { RecordProvenance, RunRecord } from './run-record.ts';
import type { RolloutRecord } from '../rl/rollout.ts';

const config = validateConfig({ task: 'trl', num_generations: 2, prompts_per_step: 1 });
const qwen: RecordProvenance = {
  writer: 'trl RecordingGRPOTrainer',
  command: 'train.py',
  created: '2026-01-01T00:00:00.000Z',
  base: {
    name: 'Qwen/Qwen2.5-0.5B',
    model: {
      architecture: 'Qwen2ForCausalLM',
      model_type: 'qwen2',
      vocab_size: 151_936,
      tokenizer: 'Qwen2TokenizerFast (Qwen/Qwen2.5-0.5B)',
      parameters: 494_032_768,
    },
  },
};

function rollout(index: number, tokens: number[]): RolloutRecord {
  const m = tokens.length;
  const f = (x: number) => Array.from({ length: m }, (_, i) => Math.fround(x + i / 8));
  return {
    step: 1,
    group: 0,
    index,
    prompt: 'What is 2+2?',
    hint: '',
    tokens,
    tokenText: tokens.map((t) => `<${t}>`),
    completion: tokens.map((t) => `<${t}>`).join(''),
    oldLogp: f(-2),
    newLogp: f(-1.5),
    refLogp: null,
    ratio: f(1),
    clipped: tokens.map((_, i) => (i === 0 ? 'high' : null)),
    entropy: f(3),
    kl: f(0),
    advantage: index === 0 ? 0.7 : -0.7,
    objective: f(0.5),
    tokenLoss: f(-0.5),
    weight: f(0.25),
    lossContribution: f(-0.125),
    trained: tokens.map(() => true),
    reward: index,
    components: { correctness: index },
    correct: index === 1,
    reason: '',
    truncated: false,
    hinted: false,
    flipped: null,
  };
}

const foreign = (tokens: number[][]): RunRecord => ({
  format: 'rlvr-playground-run-record',
  version: RUN_RECORD_VERSION,
  config,
  config_changes: [],
  provenance: qwen,
  metric_keys: [],
  steps: [{ step: 1, metrics: { step: 1, reward: 0.5 } as RunRecord['steps'][number]['metrics'] }],
  evals: [],
  rollouts: [{ step: 1, records: tokens.map((t, i) => rollout(i, t)) }],
  checkpoints: [],
});

/** The header of a record's bytes, edited, gzipped again. */
function rewrite(b: Uint8Array, edit: (header: string) => string): Uint8Array {
  const raw = gunzipSync(b);
  const len = raw.readUInt32LE(16);
  const header = edit(raw.subarray(20, 20 + len).toString('utf8'));
  const rest = raw.subarray(20 + len + ((4 - ((20 + len) % 4)) % 4));
  const hb = Buffer.from(header, 'utf8');
  const lenBuf = Buffer.alloc(4);
  lenBuf.writeUInt32LE(hb.length);
  const pad = Buffer.alloc((4 - ((20 + hb.length) % 4)) % 4);
  return new Uint8Array(gzipSync(Buffer.concat([raw.subarray(0, 16), lenBuf, hb, pad, rest])));
}
const headerOf = (b: Uint8Array) => {
  const raw = gunzipSync(b);
  return JSON.parse(raw.subarray(20, 20 + raw.readUInt32LE(16)).toString('utf8'));
};

const oldReaderDir = join(import.meta.dirname, '.run-record-v1-reader');
afterAll(() => rmSync(oldReaderDir, { recursive: true, force: true }));

describe('run record version 2: any model', () => {
  it('token ids past 16 bits and a foreign base round-trip; the file says version 2 and u32 ids', async () => {
    const bytes = await encodeRunRecord(
      foreign([
        [151_643, 70_000, 3],
        [65_535, 65_536, 0xffffffff],
      ]),
    );
    const h = headerOf(bytes);
    expect(h.version).toBe(2);
    expect(h.channels.tokens.type).toBe('u32');
    const r = await decodeRunRecord(bytes);
    if (!r.ok) throw new Error(r.error);
    expect(r.record.version).toBe(2);
    expect(r.record.provenance).toEqual(qwen);
    const ids = r.record.rollouts[0]!.records.map((x) => x.tokens);
    expect(ids).toEqual([
      [151_643, 70_000, 3],
      [65_535, 65_536, 0xffffffff],
    ]);
    expect(r.record.rollouts[0]!.records[0]).toEqual({ ...rollout(0, [151_643, 70_000, 3]) });
  });

  it('a foreign base whose ids fit 16 bits: version 2, u16 ids; an id past 32 bits is refused', async () => {
    const bytes = await encodeRunRecord(foreign([[1, 2, 3]]));
    expect(headerOf(bytes)).toMatchObject({ version: 2, channels: { tokens: { type: 'u16' } } });
    const r = await decodeRunRecord(bytes);
    if (!r.ok) throw new Error(r.error);
    expect(r.record.rollouts[0]!.records[0]!.tokens).toEqual([1, 2, 3]);
    const tooWide = (async () => encodeRunRecord(foreign([[2 ** 32]])))();
    await expect(tooWide).rejects.toThrow(/token id 4294967296 is not a whole number that fits 32 bits/);
  });

  it('a version-1 file cannot hold u32 ids, a foreign base or the new writer: each is refused by name', async () => {
    const bytes = await encodeRunRecord(foreign([[70_000]]));
    const v1 = (edit = (h: string) => h) => rewrite(bytes, (h) => edit(h.replace('"version":2,', '"version":1,')));
    const error = async (b: Uint8Array) => {
      const r = await decodeRunRecord(b);
      return r.ok ? 'decoded' : r.error;
    };
    const writer = /provenance\.writer of a version-1 file must be "rlvr train" or .*, got "trl RecordingGRPOTrainer"/;
    expect(await error(v1())).toMatch(writer);
    const asV1Writer = (h: string) => h.replace('"writer":"trl RecordingGRPOTrainer"', '"writer":"trl train_grpo.py"');
    const manifest = /provenance\.base\.manifest of a version-1 file must be a playground manifest/;
    expect(await error(v1(asV1Writer))).toMatch(manifest);
    const u8 = rewrite(bytes, (h) => h.replace('"type":"u32"', '"type":"u8"'));
    expect(await error(u8)).toMatch(/channels\.tokens\.type must be "u16" or "u32", got "u8"/);
    const big = rewrite(bytes, (h) => h.replace('"vocab_size":151936', '"vocab_size":"big"'));
    expect(await error(big)).toMatch(/provenance\.base\.model\.vocab_size must be a whole number >= 0, got "big"/);
  });

  const oldReader = 'the reader before version 2 (git: febe9e8) refuses version 2 by its version, reads our runs';
  it(oldReader, async (ctx) => {
    let source: string;
    try {
      const opts: ExecFileSyncOptionsWithStringEncoding = { cwd: import.meta.dirname, encoding: 'utf8', stdio: 'pipe' };
      source = execFileSync('git', ['show', 'febe9e8:src/rl/run-record.ts'], opts);
    } catch {
      process.stderr.write('\n!!!! SKIPPED: no commit febe9e8 (a shallow clone?); the old reader was NOT run\n\n');
      ctx.skip();
      return;
    }
    expect(source).toContain('export const RUN_RECORD_VERSION = 1;');
    mkdirSync(oldReaderDir, { recursive: true });
    // It lived in src/rl; here it sits in src/record/.run-record-v1-reader: its imports reach the same modules.
    const moved = source.replaceAll("from '../", "from '../../").replaceAll("from './", "from '../../rl/");
    writeFileSync(join(oldReaderDir, 'run-record.ts'), moved);
    const old = (await import(join(oldReaderDir, 'run-record.ts'))) as typeof import('./run-record.ts');
    const r = await old.decodeRunRecord(await encodeRunRecord(foreign([[70_000, 1]])));
    expect(r.ok).toBe(false);
    const refusal = /it is format version 2, newer than this playground reads \(up to version 1\); open it with/;
    expect(!r.ok && r.error).toMatch(refusal);
    // A playground run's record (its base a manifest, its ids 16-bit) is still version 1, which the old reader opens.
    const manifest = JSON.parse(readFileSync('public/checkpoints/sat-tiny/manifest.json', 'utf8'));
    const provenance: RecordProvenance = { ...qwen, writer: 'rlvr train', base: { name: 'sat-tiny', manifest } };
    const own: RunRecord = { ...foreign([[5, 6, 7]]), provenance };
    const bytes = await encodeRunRecord(own);
    expect(headerOf(bytes).version).toBe(1);
    const o = await old.decodeRunRecord(bytes);
    if (!o.ok) throw new Error(o.error);
    expect(o.record.rollouts[0]!.records[0]!.tokens).toEqual([5, 6, 7]);
  });
});
