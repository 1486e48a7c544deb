// The exported project's Python run-record writer (rlvr_record.py, standard library only) against
// ours: a real 2-step run's steps and rollouts (μ = 2 and beta > 0, so every per-token channel,
// the reference log-probs and clipping are there) written by the Python writer decode with
// decodeRunRecord to exactly what RunRecorder's file of the same steps decodes to. Needs only the
// machine's python3; without one the test prints a banner and is reported as skipped. The same for
// version 2 (u32 ids, a foreign base), and the package's settings module is the TypeScript's. And the record
// real TRL wrote, committed for the viewer's e2e, still decodes with this build's reader.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeBackend } from '../../engine/backend-node.ts';
import { decode } from '../../model/tokenizer.ts';
import type { RunConfig } from '../../rl/config.ts';
import { decodeRunRecord, RunRecorder, type RecordableStep, type RecordProvenance } from '../../record/run-record.ts';
import { loadBase, TrainingRun } from '../../rl/run.ts';
import { resolveOrThrow } from '../../rl/resolve-config.ts';
import { packageSettingsSource, recordWriterSource } from './record-file.ts';
import { pythonPackageDir } from './python-sources.ts'; // also: the Python sources, read from disk

/** The user's choices over the checkpoint's recipe, through the one resolver. */
const resolveUser = (user: Record<string, unknown>, manifest: Parameters<typeof resolveOrThrow>[0]['manifest']) =>
  resolveOrThrow({ manifest, layers: [{ source: { kind: 'edited' }, values: user }] });

const tmp = mkdtempSync(join(tmpdir(), 'rlvr-record-writer-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const dir = 'public/checkpoints/sat-tiny';
const python = spawnSync('python3', ['--version']).status === 0 ? 'python3' : null;

let config: RunConfig;
let provenance: RecordProvenance;
const steps: RecordableStep[] = [];

beforeAll(async () => {
  const base = loadBase(
    JSON.parse(readFileSync(`${dir}/manifest.json`, 'utf8')),
    new Uint8Array(readFileSync(`${dir}/model.safetensors`)),
  );
  config = resolveUser(
    {
      task: 'sat',
      prompts_per_step: 2,
      num_generations: 4,
      max_completion_length: 24,
      num_iterations: 2,
      beta: 0.02,
      eval_every: 0,
      seed: 5,
    },
    base.manifest,
  );
  provenance = {
    writer: 'trl train_grpo.py',
    command: 'record-writer.test',
    created: '2026-01-01T00:00:00.000Z',
    base: { name: base.manifest.name, manifest: base.manifest },
  };
  const run = await TrainingRun.create(createNodeBackend(1), base, config);
  try {
    while (run.step < 2) steps.push((await run.advance(2)).result);
  } finally {
    await run.dispose();
  }
}, 300_000);

/** JSON for Python's json module, which reads NaN and ±Infinity as bare words. */
function pythonJson(x: unknown): string {
  return JSON.stringify(x, (_k, v: unknown) =>
    typeof v === 'number' && !Number.isFinite(v) ? `__number__${v}` : v,
  ).replace(/"__number__(NaN|Infinity|-Infinity)"/g, '$1');
}

/** Feeds steps (JSON on stdin) to the exported rlvr_record.py's RunRecordWriter and writes the file argv[2]. */
const driver = [
  'import json, sys',
  'sys.path.insert(0, sys.argv[1])',
  'from rlvr_record import RunRecordWriter',
  'x = json.load(sys.stdin)',
  'w = RunRecordWriter(x["config"], x["provenance"])',
  'for s in x["steps"]:',
  '    w.add_step(s["metrics"]["step"], s["metrics"], s["rollouts"], s.get("advantageHistogram"), s.get("difficulty"))',
  'w.write(sys.argv[2])',
].join('\n');
writeFileSync(join(tmp, 'rlvr_record.py'), recordWriterSource());

describe("rlvr_record.py, the TRL export's run-record writer", () => {
  it('writes what RunRecorder writes: both files decode to the same record, every channel included', async (ctx) => {
    if (!python) {
      process.stderr.write(
        `\n${'!'.repeat(100)}\n!!  SKIPPED: no python3 on this machine; rlvr_record.py was NOT checked ` +
          `against RunRecorder\n${'!'.repeat(100)}\n\n`,
      );
      ctx.skip();
    }
    const rollouts = steps.flatMap((s) => s.rollouts);
    expect(rollouts.some((r) => r.refLogp !== null && r.ratio.length > 0)).toBe(true);
    expect(
      rollouts.some(
        (r) => r.oldLogp.length !== r.ratio.length || r.trained.some((t) => !t) || r.clipped.some((c) => c !== null),
      ),
    ).toBe(true);
    const file = join(tmp, 'python.rlvr.gz');
    execFileSync(python!, ['-c', driver, tmp, file], {
      input: pythonJson({ config, provenance, steps }),
      maxBuffer: 64 * 1024 * 1024,
    });
    const fromPython = await decodeRunRecord(new Uint8Array(readFileSync(file)));
    if (!fromPython.ok) throw new Error(fromPython.error);

    const rec = new RunRecorder(config, provenance);
    for (const s of steps) rec.addStep(s);
    const fromOurs = await decodeRunRecord(await rec.encode());
    if (!fromOurs.ok) throw new Error(fromOurs.error);
    expect(fromPython.notes).toEqual(fromOurs.notes);
    expect(fromPython.record).toEqual(fromOurs.record);
    expect(fromPython.record.rollouts.map((r) => r.records.length)).toEqual([8, 8]);
  }, 120_000);

  it('writes version 2 as RunRecorder does: token ids past 16 bits (u32), a base model from elsewhere', async (ctx) => {
    if (!python) {
      const bar = '!'.repeat(100);
      process.stderr.write(`\n${bar}\n!!  SKIPPED: no python3; rlvr_record.py's version 2 was NOT checked\n${bar}\n\n`);
      ctx.skip();
    }
    // The same steps as a run of a 151k-token model: ids moved past 16 bits, the base a Qwen2 model.
    const shift = (r: RecordableStep['rollouts'][number]) => ({ ...r, tokens: r.tokens.map((t) => t + 151_000) });
    const wide = steps.map((s) => ({ ...s, rollouts: s.rollouts.map(shift) }));
    const model = { architecture: 'Qwen2ForCausalLM', model_type: 'qwen2', vocab_size: 151_936, tokenizer: 'Qwen2' };
    const base = { name: 'Qwen/Qwen2.5-0.5B', model };
    const qwen: RecordProvenance = { ...provenance, writer: 'trl RecordingGRPOTrainer', base };
    const file = join(tmp, 'python-v2.rlvr.gz');
    const input = pythonJson({ config, provenance: qwen, steps: wide });
    execFileSync(python!, ['-c', driver, tmp, file], { input, maxBuffer: 64 * 1024 * 1024 });
    const fromPython = await decodeRunRecord(new Uint8Array(readFileSync(file)));
    if (!fromPython.ok) throw new Error(fromPython.error);
    const rec = new RunRecorder(config, qwen);
    for (const s of wide) rec.addStep(s);
    const fromOurs = await decodeRunRecord(await rec.encode());
    if (!fromOurs.ok) throw new Error(fromOurs.error);
    expect(fromPython.record.version).toBe(2);
    expect(fromPython.record).toEqual(fromOurs.record);
    expect(fromPython.record.rollouts[0]!.records[0]!.tokens[0]).toBeGreaterThan(151_000);
  }, 120_000);

  it('python/rlvr_playground/record_settings.py is what the TypeScript says (python-record-settings.mjs)', () => {
    const file = new URL('rlvr_playground/record_settings.py', pythonPackageDir);
    expect(readFileSync(file, 'utf8')).toBe(packageSettingsSource());
  });

  it('the committed record real TRL wrote (e2e/fixtures, scripts/trl-record-fixture.sh) still decodes', async () => {
    const r = await decodeRunRecord(new Uint8Array(readFileSync('e2e/fixtures/trl-arithmetic-2steps.rlvr.gz')));
    if (!r.ok) throw new Error(r.error);
    expect(r.notes).toEqual([]);
    expect(r.record.provenance.writer).toBe('trl train_grpo.py');
    expect(r.record.steps.map((s) => s.step)).toEqual([1, 2]);
    expect(r.record.rollouts.map((x) => x.records.length)).toEqual([8, 8]);
    for (const x of r.record.rollouts.flatMap((s) => s.records)) {
      expect(decode(x.tokens)).toBe(x.completion);
      expect(x.oldLogp).toHaveLength(x.tokens.length);
    }
  });
});
