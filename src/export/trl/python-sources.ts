/**
 * The Python sources of the TRL export (python/*.py), read from disk: the export runs in Node only
 * (the rlvr command and its tests), so nothing here is bundled for the browser.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const pythonDir = fileURLToPath(new URL('./python/', import.meta.url));

/** The families with a Python port of their verifier (python/<id>.py). */
export const portedFamilies = ['arithmetic', 'countdown', 'sat', 'sudoku', 'sort', 'chain'] as const;

export function pythonSource(name: string): string {
  return readFileSync(new URL(`./python/${name}.py`, import.meta.url), 'utf8');
}
