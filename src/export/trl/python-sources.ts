/**
 * The Python sources of the TRL export (python/*.py), read from disk in Node (the rlvr command and its
 * tests): importing this module makes python-text.ts read them from here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setPythonSources } from './python-text.ts';

export { portedFamilies, pythonSource } from './python-text.ts';

export const pythonDir = fileURLToPath(new URL('./python/', import.meta.url));

setPythonSources((name) => readFileSync(new URL(`./python/${name}.py`, import.meta.url), 'utf8'));
