// No rlvr command shows a raw system error ("EISDIR: illegal operation on a directory"): a folder where
// a file belongs, a missing file or folder, are named with their path (system-error.ts, main.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rlvr } from './rlvr-process.ts';
import { cliErrorText } from './system-error.ts';

const RAW = /\bE[A-Z]{3,}\b|illegal operation|no such file or directory/;
const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
};

describe('system errors in words', () => {
  it('rlvr record info DIR says it is a folder and what to give instead', async () => {
    const r = await rlvr('record', 'info', 'src');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('src is a folder: give a run record file (.rlvr.gz');
    expect(r.stderr).not.toMatch(RAW);
  });

  it('other commands: a folder given as a file, a missing file, a missing output folder', async () => {
    const cases = [
      {
        args: ['verify', '--task', 'sat', '--instance', 'src', '--completion', 'src'],
        says: 'src: it is a folder, where a file was expected',
      },
      {
        args: ['train', '--task', 'sat', '--config', 'src', '--explain-config'],
        says: 'src: it is a folder, where a file was expected',
      },
      {
        args: ['eval', '--model', 'no-such-dir/manifest.json', '--task', 'sat'],
        says: 'no-such-dir/manifest.json: it does not exist',
      },
      {
        args: [
          'record',
          'thin',
          'e2e/fixtures/trl-arithmetic-2steps.rlvr.gz',
          '--out',
          'no-such-dir/x.rlvr.gz',
          '--rollouts-every',
          '2',
        ],
        says: 'the folder no-such-dir does not exist',
      },
    ];
    for (const c of cases) {
      const r = await rlvr(...c.args);
      expect(r.code, c.args.join(' ')).not.toBe(0);
      expect(r.stderr, c.args.join(' ')).toContain(c.says);
      expect(r.stderr, c.args.join(' ')).not.toMatch(RAW);
    }
  });

  it("maps Node's own errors, and a raw message quoted inside another", () => {
    const dir = tmpdir();
    expect(cliErrorText(thrown(() => readFileSync(dir)))).toBe('it is a folder, where a file was expected');
    const missing = join(dir, 'rlvr-no-such-file.json');
    expect(cliErrorText(thrown(() => readFileSync(missing)))).toBe(`${missing} does not exist`);
    expect(cliErrorText(thrown(() => writeFileSync(join(dir, 'rlvr-no-such-dir', 'x'), '')))).toBe(
      `the folder ${join(dir, 'rlvr-no-such-dir')} does not exist`,
    );
    const quoted = new Error(`cannot read x.json: ${(thrown(() => readFileSync(dir)) as Error).message}`);
    expect(cliErrorText(quoted)).toBe('cannot read x.json: it is a folder, where a file was expected');
  });
});
