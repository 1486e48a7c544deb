/**
 * The Python sources of the TRL export (python/*.py), read from disk in Node (the rlvr command and its
 * tests): importing this module makes python-text.ts read them from here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setPythonSources } from './python-text.ts';

export { portedFamilies, pythonSource } from './python-text.ts';

export const pythonDir = fileURLToPath(new URL('./python/', import.meta.url));

/** The package's folder in the repository (what `pip install ./python` installs). */
export const pythonPackageDir = new URL('../../../python/', import.meta.url);

// `rlvr_playground/<module>` is the package's (python/ at the repository's root); any other name is
// python/<name>.py here.
const sourceUrl = (name: string) =>
  name.startsWith('rlvr_playground/')
    ? new URL(`${name}.py`, pythonPackageDir)
    : new URL(`./python/${name}.py`, import.meta.url);
setPythonSources((name) => readFileSync(sourceUrl(name), 'utf8'));
