// Files given to the wrong place are named by their content (file-kind.ts). The Parquet file and the
// trainer_state.json are written by the tools that write them in a TRL run (pandas/pyarrow's to_parquet,
// as TRL's --log_completions does, and transformers' TrainerState.save_to_json) when the Python from
// scripts/setup-python.sh is here; without it those cases print a banner and are skipped. The gzip is
// one of our own run records.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binaryKind, droppedFilesPlan, jsonKind, wrongFileMessage } from '../../util/file-kind.ts';
import { readUtf8File } from './text-import.ts';

const root = resolve(import.meta.dirname, '..', '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'rlvr-file-kind-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function madeByPython(): string | null {
  const setup = spawnSync('bash', ['scripts/setup-python.sh'], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  const python = setup.status === 0 ? setup.stdout.trim().split('\n').at(-1)! : '';
  const script = [
    'import sys, pandas as pd',
    'from transformers import TrainerState',
    'out = sys.argv[1]',
    'pd.DataFrame({"step": ["1"], "prompt": ["2+2="], ' +
      '"completion": ["4"], "advantage": ' +
      '[0.5]}).to_parquet(out + ' +
      '"/completions_00001.parquet")',
    's = TrainerState(global_step=20, max_steps=20, log_history=[{"loss": 0.1, "step": 10}])',
    's.save_to_json(out + "/trainer_state.json")',
  ].join('\n');
  if (!python || !existsSync(python)) {
    process.stderr.write(
      `\n${'!'.repeat(100)}\n!!  FILE KIND: Parquet and ` +
        'trainer_state.json cases SKIPPED: no Python from ' +
        `scripts/setup-python.sh\n${'!'.repeat(100)}\n`,
    );
    return null;
  }
  const r = spawnSync(python, ['-c', script, tmp], {
    encoding: 'utf8',
    env: { ...process.env, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', OMP_NUM_THREADS: '1' },
  });
  if (r.status !== 0) throw new Error(`writing the fixtures failed: ${r.stderr.slice(-2000)}`);
  return tmp;
}
const made = madeByPython();
const file = (path: string) => new File([readFileSync(path)], path.split('/').at(-1)!);

describe('a file given to the wrong place is named for what it is', () => {
  it.skipIf(!made)('a Parquet file in Your data: Parquet, not "not UTF-8 … Latin-1"', async () => {
    const err = await readUtf8File(file(join(tmp, 'completions_00001.parquet')), 'a dataset (JSON Lines text)').catch(
      (e: Error) => e,
    );
    expect(String(err)).toContain('completions_00001.parquet is a Parquet file');
    expect(String(err)).toContain('not a dataset (JSON Lines text)');
    expect(String(err)).toContain('Open a run folder…');
    expect(String(err)).not.toContain('Latin-1');
  });

  it.skipIf(!made)("TRL's trainer_state.json given as a config: named, not listed as unknown fields", async () => {
    const err = await readUtf8File(file(join(tmp, 'trainer_state.json')), 'a run config').catch((e: Error) => e);
    expect(String(err)).toMatch(
      new RegExp(
        String.raw`trainer_state\.json is TRL's trainer_state\.json .*, not a run ` +
          'config: a TRL run folder .* opens with "Open a run folder…"',
      ),
    );
    expect(String(err)).not.toContain('unknown field');
  });

  it.skipIf(!made)('rlvr train --config trainer_state.json names the file too, with what to run instead', () => {
    const r = spawnSync(
      'node',
      ['scripts/rlvr.mjs', 'train', '--task', 'sat', '--config', join(tmp, 'trainer_state.json'), '--explain-config'],
      { cwd: root, encoding: 'utf8' },
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        String.raw`trainer_state\.json is TRL's trainer_state\.json .*, not a run ` +
          'config: its checkpoint folder imports with rlvr import --format hf DIR',
      ),
    );
    expect(r.stderr).not.toContain('unknown field');
  });

  it('a run record (gzip) given as a dataset; a zip; text that is none of these reads as before', async () => {
    const rec = readFileSync(join(root, 'e2e/fixtures/trl-arithmetic-2steps.rlvr.gz'));
    expect(wrongFileMessage('run.rlvr.gz', rec, 'a dataset')).toMatch(
      /^run\.rlvr\.gz is a gzip file, not a dataset: a run record \(\.rlvr\.gz\) opens with "Open a recorded run…"/,
    );
    expect(binaryKind(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0]))?.what).toBe('a zip archive');
    expect(jsonKind({ learning_rate: 0.001 })).toBeNull();
    const text = new File(['{"prompt": "1+1=", "answer": "2"}\n'], 'data.jsonl');
    expect(await readUtf8File(text, 'a dataset')).toContain('"answer"');
    const latin1 = new File([new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a])], 'cafe.jsonl');
    expect(String(await readUtf8File(latin1, 'a dataset').catch((e: Error) => e))).toContain('Latin-1');
  });
});

describe('several files dropped at once', () => {
  it('the recorded run among them opens and each other file is reported, not only the first', () => {
    const rec = new Uint8Array(readFileSync(join(root, 'e2e/fixtures/trl-arithmetic-2steps.rlvr.gz')));
    const state = new TextEncoder().encode(JSON.stringify({ global_step: 20, log_history: [{ loss: 0.1, step: 10 }] }));
    const parquet = new Uint8Array([0x50, 0x41, 0x52, 0x31, 0, 0, 0x50, 0x41, 0x52, 0x31]);
    const notes = new TextEncoder().encode('hello');
    const plan = droppedFilesPlan([
      { name: 'trainer_state.json', bytes: state },
      { name: 'run.rlvr.gz', bytes: rec },
      { name: 'completions.parquet', bytes: parquet },
      { name: 'other.rlvr.gz', bytes: rec },
      { name: 'notes.txt', bytes: notes },
    ]);
    expect(plan.open).toBe(1);
    expect(plan.notes).toHaveLength(4);
    expect(plan.notes[0]).toMatch(/^trainer_state\.json is TRL's trainer_state\.json/);
    expect(plan.notes[1]).toMatch(/^completions\.parquet is a Parquet file/);
    expect(plan.notes[2]).toMatch(/^other\.rlvr\.gz: not opened, one recorded run opens at a time/);
    expect(plan.notes[3]).toBe('notes.txt is not a recorded run (.rlvr.gz), so it was not opened');
    expect(
      droppedFilesPlan([
        { name: 'a.parquet', bytes: parquet },
        { name: 'b.txt', bytes: notes },
      ]).open,
    ).toBeNull();
    expect(droppedFilesPlan([{ name: 'only.txt', bytes: notes }])).toEqual({ open: 0, notes: [] });
  });
});
