/** JSON-like values written as Python literals (for generated .py files). */
export function pyValue(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`cannot write ${v} as a Python literal`);
    return String(v);
  }
  // JSON string escapes (\n, \", \\, \uXXXX) mean the same in Python.
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pyValue).join(', ')}]`;
  if (typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pyValue(x)}`)
      .join(', ')}}`;
  throw new Error(`cannot write a ${typeof v} as a Python literal`);
}
