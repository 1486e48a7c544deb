import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `npm start` is what the README sends every visitor to, so it serves the production build (vite build,
 * then vite preview): Vite's dev server drew 5-8 frames a second while the default run trained and took
 * 5-10 s to show Pause (scripts/measure-start.mjs measures both). The dev server stays under
 * `npm run dev`, on another port, so the built page's service worker at :5173 never answers for it.
 */
const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

describe('npm start serves the page a visitor should meet', () => {
  it('start installs, builds and serves the production build at :5173; dev is the dev server on its own port', () => {
    const start = pkg.scripts.start!.split('&&').map((s) => s.trim());
    expect(start[0]).toMatch(/^npm install\b/);
    expect(start[1]).toBe('vite build');
    expect(start[2]).toMatch(/^vite preview --port 5173 --strictPort$/);
    expect(pkg.scripts.dev).toMatch(/^vite --port (\d+)$/);
    expect(pkg.scripts.dev).not.toContain('5173');
  });
});
