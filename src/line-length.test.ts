import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The longest a line of a hand-written source file may be (biome.json lineWidth), in characters (code points). */
const MAX_CHARS = 120;

/** What counts as a source file: the rule looks at every tracked file with one of these endings. */
const SOURCE = /\.(ts|tsx|mjs|js|py|sh|css|html)$/;

/**
 * Generated files, left out with the reason: their lines follow what they are generated from, so a
 * wrap belongs in the generator, never by hand in the output. (Data such as .json fixtures is not source.)
 */
const GENERATED: Record<string, string> = {
  'python/rlvr_playground/record_settings.py':
    'written by scripts/python-record-settings.mjs from the TypeScript tables it mirrors ("do not edit")',
};

/** The files the rule covers: tracked source files, less the generated ones. */
function coveredFiles(tracked: string[]): string[] {
  return tracked.filter((f) => SOURCE.test(f) && !(f in GENERATED));
}

/** `file:line (N chars)` for each line of a covered file over MAX_CHARS. */
function longLines(files: string[], read: (file: string) => string): string[] {
  return files.flatMap((f) =>
    read(f)
      .split('\n')
      .flatMap((line, i) => {
        const n = [...line.replace(/\r$/, '')].length;
        return n > MAX_CHARS ? [`${f}:${i + 1} (${n} chars)`] : [];
      }),
  );
}

function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' });
  return out.split('\0').filter(Boolean);
}

describe(`no line of a hand-written source file over ${MAX_CHARS} characters`, () => {
  it('every tracked source file has short enough lines', () => {
    const tracked = trackedFiles();
    const files = coveredFiles(tracked);
    // The check must see the real tree: a listing that found nothing would pass too.
    expect(files.length).toBeGreaterThan(300);
    expect(files).toContain('src/rl/presets.ts');
    expect(files).toContain('bench/torch_peer.py');
    expect(files).toContain('e2e/lib.mjs');
    expect(files).toContain('src/ui/state/store.ts');
    for (const f of Object.keys(GENERATED)) expect(tracked, `${f} is listed as generated`).toContain(f);
    expect(longLines(files, (f) => readFileSync(join(root, f), 'utf8'))).toEqual([]);
  });

  it('the check reports a line one character over the limit, and not one at it', () => {
    const files: Record<string, string> = {
      'src/a.ts': `${'x'.repeat(MAX_CHARS)}\n${'é'.repeat(MAX_CHARS)}\n`,
      'src/b.py': `ok\n${'y'.repeat(MAX_CHARS + 1)}\n`,
    };
    expect(longLines(Object.keys(files), (f) => files[f]!)).toEqual([`src/b.py:2 (${MAX_CHARS + 1} chars)`]);
    expect(coveredFiles(['e2e/a.spec.mjs', 'src/ui/a.tsx', 'src/a.json', 'index.html'])).toEqual([
      'e2e/a.spec.mjs',
      'src/ui/a.tsx',
      'index.html',
    ]);
    expect(coveredFiles(['python/rlvr_playground/record_settings.py'])).toEqual([]);
  });
});
