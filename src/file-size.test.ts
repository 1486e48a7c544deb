import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The most lines a hand-written source file may have (docs/architecture.md): past it, split it by topic. */
const MAX_LINES = 400;

/** The folders whose source files the rule covers, and what counts as a source file there. */
const FOLDERS = ['src', 'workers', 'bench', 'scripts', 'python', 'e2e'];
const SOURCE = /\.(ts|tsx|mjs|js|py)$/;

/**
 * Generated files, left out with the reason: their length follows what they are generated from, so a
 * split belongs in the generator, never by hand in the output. (Data such as bench/results.json or the
 * fixtures' .json, .parquet and .gz files is not source and is not looked at.)
 */
const GENERATED: Record<string, string> = {
  'python/rlvr_playground/record_settings.py':
    'written by scripts/python-record-settings.mjs from the TypeScript tables it mirrors ("do not edit")',
};

/**
 * Known to be over, each with what is left to do: none now. e2e/app.spec.mjs, whose tests share one page that
 * trained the default run, was the last; its checks of charts, token colours and downloads went to e2e/app-lib.mjs.
 */
const NOT_YET_SPLIT: Record<string, string> = {};

/** Lines as `wc -l` counts them, plus a last line without its newline. */
function lineCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return text.length > 0 && !text.endsWith('\n') ? n + 1 : n;
}

/** The files the rule covers: tracked source files in FOLDERS, less the generated ones and NOT_YET_SPLIT. */
function coveredFiles(tracked: string[], notYetSplit: Record<string, string> = NOT_YET_SPLIT): string[] {
  return tracked.filter(
    (f) => SOURCE.test(f) && FOLDERS.some((d) => f.startsWith(`${d}/`)) && !(f in GENERATED) && !(f in notYetSplit),
  );
}

/** `path: N lines` for each covered file over MAX_LINES. */
function oversized(files: string[], read: (file: string) => string): string[] {
  return files.flatMap((f) => {
    const n = lineCount(read(f));
    return n > MAX_LINES ? [`${f}: ${n} lines`] : [];
  });
}

function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--', ...FOLDERS], { cwd: root, encoding: 'utf8' });
  return out.split('\0').filter(Boolean);
}

describe(`no hand-written source file over ${MAX_LINES} lines`, () => {
  it('every tracked source file in src/, workers/, bench/, scripts/, python/ and e2e/ is short enough', () => {
    const tracked = trackedFiles();
    const files = coveredFiles(tracked);
    // The check must see the real tree: a listing that found nothing would pass too.
    expect(files.length).toBeGreaterThan(300);
    expect(files).toContain('workers/training-session.ts');
    expect(files).toContain('bench/torch_peer.py');
    expect(files).toContain('e2e/recording.spec.mjs');
    for (const f of Object.keys(NOT_YET_SPLIT)) expect(tracked, `${f} is listed as not yet split`).toContain(f);
    for (const f of Object.keys(GENERATED)) expect(tracked, `${f} is listed as generated`).toContain(f);
    expect(oversized(files, (f) => readFileSync(join(root, f), 'utf8'))).toEqual([]);
  });

  it('the check reports a file one line over the limit, and not one at it', () => {
    const text = (lines: number) => 'x\n'.repeat(lines);
    const files: Record<string, string> = { 'src/at.ts': text(MAX_LINES), 'src/over.ts': text(MAX_LINES + 1) };
    expect(oversized(Object.keys(files), (f) => files[f]!)).toEqual([`src/over.ts: ${MAX_LINES + 1} lines`]);
    expect(lineCount('a\nb')).toBe(2);
    expect(coveredFiles(['e2e/a.spec.mjs', 'src/a.ts', 'src/a.json', 'docs/a.ts'], {})).toEqual([
      'e2e/a.spec.mjs',
      'src/a.ts',
    ]);
    expect(
      coveredFiles(['e2e/a.spec.mjs', 'python/rlvr_playground/record_settings.py'], { 'e2e/a.spec.mjs': '' }),
    ).toEqual([]);
  });
});
