/**
 * The Python sources of the TRL export by name (python/<name>.py here, and `rlvr_playground/<module>`
 * for the package's modules in the repository's python/), from whoever can read them: in Node,
 * python-sources.ts reads them from disk; in the page, src/ui/state/trl-export.ts loads them as bundled text.
 * The rest of the export (contents.ts and the files it writes) reads them through here, so it needs
 * neither the file system nor the DOM.
 */

/** The families with a Python port of their verifier (python/<id>.py). */
export const portedFamilies = ['arithmetic', 'countdown', 'sat', 'sudoku', 'sort', 'chain'] as const;

let read: ((name: string) => string) | null = null;

/** Where the sources come from (python-sources.ts in Node, the bundle in the page). */
export function setPythonSources(reader: (name: string) => string): void {
  read = reader;
}

export function pythonSource(name: string): string {
  if (!read) {
    const why = 'import python-sources.ts in Node';
    throw new Error(`the TRL export's Python sources are not loaded (python/${name}.py): ${why}`);
  }
  return read(name);
}
