/**
 * `rlvr findings` run as a user runs it (node scripts/rlvr.mjs): on the run with every kind planted
 * (src/runs/fixtures/planted-findings.jsonl, src/runs/findings/planted.ts) its --json lines are the
 * contract's keys and give the planted steps and rows, the same as the findings computed in-process; it
 * exits 0 on a clean run, and 2 naming the path it cannot read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findRunFindings } from '../runs/findings/find.ts';
import { plantedExpectations, plantedJsonl } from '../runs/findings/planted.ts';
import { findingKinds } from '../runs/findings/types.ts';
import { openRun } from '../runs/index.ts';
import { nodeRunFiles } from '../node/run-files.ts';
import { rlvr } from './rlvr-process.ts';

const FIXTURE = 'src/runs/fixtures/planted-findings.jsonl';
const tmp = mkdtempSync(join(tmpdir(), 'rlvr-findings-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('rlvr findings', () => {
  it('--json: one object per line with the contract keys, at the planted steps and rows', async () => {
    const r = await rlvr('findings', FIXTURE, '--json');
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const l of lines) expect(Object.keys(l)).toEqual(['run', 'kind', 'step', 'group', 'rows', 'score', 'text']);
    const places = lines.map((l) => ({ kind: l.kind, step: l.step, group: l.group, rows: l.rows }));
    for (const kind of findingKinds)
      for (const e of plantedExpectations[kind])
        expect(places).toContainEqual({ kind: e.kind, step: e.step, group: e.group, rows: e.rows });
    // The same findings, in the same order, as the engine gives in-process.
    const run = await openRun(nodeRunFiles('src/runs/fixtures'), {
      path: 'planted-findings.jsonl',
      name: FIXTURE,
      format: 'jsonl',
    });
    const { findings } = await findRunFindings(run);
    expect(places).toEqual(findings.map((f) => ({ kind: f.kind, step: f.step, group: f.group, rows: f.rows })));
    expect(lines.every((l) => l.run === FIXTURE)).toBe(true);
  });

  it('a clean run: exit 0 and "no findings"; a missing path and a file that is no run: exit 2, named', async () => {
    const clean = join(tmp, 'clean.jsonl');
    writeFileSync(clean, plantedJsonl());
    const notRun = join(tmp, 'notes.txt');
    writeFileSync(notRun, 'hello\n');
    const ok = await rlvr('findings', clean);
    expect(ok).toMatchObject({ code: 0, stdout: 'no findings\n' });
    const bad = await rlvr('findings', join(tmp, 'missing'), notRun);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`rlvr findings: ${join(tmp, 'missing')}: no such file or folder`);
    expect(bad.stderr).toContain(`rlvr findings: ${notRun}: no run found`);
  });
});
