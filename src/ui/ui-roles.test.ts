import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * src/ui in three roles, each a folder, imported in one direction only (views -> state -> derive):
 *
 * - derive/: pure modules, functions of their inputs: no store (nor a store library: zustand), no worker,
 *   no browser global (window, document, storage, fetch, timers...). They may name the store's types
 *   (`import type`, erased by the build) so that a selector can take the state it reads, but never import a
 *   value from state/ or a view.
 * - state/: the store, and every module with an effect: one that reads or writes the store, talks to a
 *   worker, or touches the browser (storage, the address, the tab channel, the network). It imports
 *   derive/ and itself, never a view.
 * - the views: components/, App.tsx, main.tsx (and styles.css). They may import both.
 *
 * Nothing else lives in src/ui: a new module picks its folder. Below the views, nothing finds a view in
 * the page by its test id either (a view answers the store instead, as chart focus does: show-chart.ts).
 */
const ui = __dirname;
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !/\.test\./.test(f) ? [p] : [];
  });
type Role = 'view' | 'state' | 'derive' | 'outside' | 'none';
const roleOf = (abs: string): Role => {
  const r = relative(ui, abs);
  if (r.startsWith('..')) return 'outside';
  if (r.startsWith('components/') || ['App.tsx', 'main.tsx', 'styles.css'].includes(r)) return 'view';
  if (r.startsWith('state/')) return 'state';
  if (r.startsWith('derive/')) return 'derive';
  return 'none';
};
/** What each role may import from src/ui, by value; derive may also import state's types. */
const allowed: Record<Role, Role[]> = {
  view: ['view', 'state', 'derive'],
  state: ['state', 'derive'],
  derive: ['derive'],
  outside: [],
  none: [],
};

/** Every import (static, dynamic, re-export) of `source`, with whether the whole statement is type-only. */
function importsOf(source: string): { spec: string; typeOnly: boolean }[] {
  const statics = [...source.matchAll(/^(import|export)(\s+type)?\b[^;]*?\bfrom\s+'([^']+)'/gms)].map((m) => ({
    spec: m[3]!,
    typeOnly: Boolean(m[2]),
  }));
  const dynamics = [...source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => ({ spec: m[1]!, typeOnly: false }));
  const bare = [...source.matchAll(/^import\s+'([^']+)'/gm)].map((m) => ({ spec: m[1]!, typeOnly: false }));
  return [...statics, ...dynamics, ...bare];
}

/** Libraries that hold state, draw or talk to a worker: derive/ may name their types only. */
const STATEFUL_PACKAGES = /^(zustand|react|react-dom|comlink)(\/|$)/;

/** The imports in `file` (at `path`) that break the direction, as "file imports spec" lines. */
function wrongWay(path: string, source: string): string[] {
  const from = roleOf(path);
  return importsOf(source).flatMap(({ spec, typeOnly }) => {
    if (STATEFUL_PACKAGES.test(spec) && from === 'derive' && !typeOnly)
      return [`${relative(ui, path)} (derive) imports ${spec} (a store, view or worker library)`];
    if (!spec.startsWith('.')) return [];
    const to = roleOf(resolve(dirname(path), spec));
    if (to === 'outside' || allowed[from].includes(to)) return [];
    if (typeOnly && from === 'derive' && to === 'state') return [];
    return [`${relative(ui, path)} (${from}) imports ${spec} (${to})`];
  });
}

/** Browser globals a pure module must not touch (comments stripped first). */
const GLOBALS = new RegExp(
  `\\b(${[
    'window',
    'document',
    'localStorage',
    'sessionStorage',
    'indexedDB',
    'navigator',
    'location',
    'history',
    'fetch',
    'Worker',
    'BroadcastChannel',
    'setTimeout',
    'setInterval',
    'requestAnimationFrame',
    'performance',
    'globalThis',
  ].join('|')})\\b`,
);
const code = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const all = files(ui);

describe('src/ui: views -> state -> derive, one way', () => {
  it('every module below the views is in state/ or derive/', () => {
    expect(all.filter((p) => roleOf(p) === 'none').map((p) => relative(ui, p))).toEqual([]);
  });
  it('no module imports against the direction', () => {
    expect(all.flatMap((p) => wrongWay(p, readFileSync(p, 'utf8')))).toEqual([]);
  });
  it('the check sees a wrong-way import of each kind', () => {
    const at = (r: string) => join(ui, r);
    expect(wrongWay(at('derive/x.ts'), "import { getState } from '../state/store.ts';")).toHaveLength(1);
    expect(wrongWay(at('derive/x.ts'), "import type { AppState } from '../state/store.ts';")).toEqual([]);
    expect(wrongWay(at('derive/x.ts'), "import type { P } from '../components/P.tsx';")).toHaveLength(1);
    expect(wrongWay(at('state/x.ts'), "export { App } from '../App.tsx';")).toHaveLength(1);
    expect(wrongWay(at('state/x.ts'), "const m = await import('../components/Tabs.tsx');")).toHaveLength(1);
    expect(wrongWay(at('state/x.ts'), "import {\n  a,\n} from '../derive/chart-data.ts';")).toEqual([]);
    expect(wrongWay(at('derive/x.ts'), "import '../state/theme.ts';")).toHaveLength(1);
    expect(wrongWay(at('derive/x.ts'), "import { create } from 'zustand';")).toHaveLength(1);
    expect(wrongWay(at('derive/x.ts'), "import type { ReactNode } from 'react';")).toEqual([]);
    expect(wrongWay(at('state/x.ts'), "import { create } from 'zustand';")).toEqual([]);
    expect(wrongWay(at('components/X.tsx'), "import { a } from '../state/store.ts';")).toEqual([]);
  });
  it('derive/ touches no browser global', () => {
    const impure = all
      .filter((p) => roleOf(p) === 'derive')
      .flatMap((p) => {
        const hit = GLOBALS.exec(code(readFileSync(p, 'utf8')));
        return hit ? [`${relative(ui, p)}: ${hit[0]}`] : [];
      });
    expect(impure).toEqual([]);
  });
  it('no module below the views looks one up in the page by its test id', () => {
    const lookups = all.filter(
      (p) => roleOf(p) !== 'view' && /querySelector[^(]*\([^)]*data-testid/.test(readFileSync(p, 'utf8')),
    );
    expect(lookups.map((p) => relative(ui, p))).toEqual([]);
  });
});
