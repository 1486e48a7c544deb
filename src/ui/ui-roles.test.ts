import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * src/ui in two roles, imported in one direction: the views (components/, App.tsx, main.tsx) import the
 * state, actions and pure helpers beside them, and those never import a view, nor find one in the
 * page by its test id (a view answers the store instead, as chart focus does: show-chart.ts).
 */
const ui = __dirname;
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !/\.test\./.test(f) ? [p] : [];
  });
const isView = (p: string) => {
  const r = relative(ui, p);
  return r.startsWith('components/') || r === 'App.tsx' || r === 'main.tsx';
};
const logic = files(ui).filter((p) => !isView(p));

describe('src/ui: views above, state and actions below', () => {
  it('no module below the views imports one', () => {
    const up = logic.flatMap((p) =>
      [...readFileSync(p, 'utf8').matchAll(/from '([^']+)'/g)]
        .map((m) => m[1]!)
        .filter((spec) => /(^|\/)components\/|\.tsx$|(^|\/)App\.tsx/.test(spec))
        .map((spec) => `${relative(ui, p)} imports ${spec}`),
    );
    expect(up).toEqual([]);
  });
  it('no module below the views looks one up in the page by its test id', () => {
    const lookups = logic.filter((p) => /querySelector[^(]*\([^)]*data-testid/.test(readFileSync(p, 'utf8')));
    expect(lookups.map((p) => relative(ui, p))).toEqual([]);
  });
});
