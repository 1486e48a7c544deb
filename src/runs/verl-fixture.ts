/**
 * Writes a veRL rollout dump for tests, byte for byte as veRL writes it: verl/trainer/ppo/ray_trainer.py
 * `_dump_generations` builds `{"input", "output", "gts", "score", "step", **reward_extra_infos}` per sample,
 * `json.dumps(entry, ensure_ascii=False)` each (", " and ": " separators, floats in Python's repr, bare
 * NaN/Infinity, non-ASCII text raw), and writes `"\n".join(lines) + "\n"` to `{global_step}.jsonl`.
 * Scores are floats there (`token_level_scores.sum(-1).tolist()`); so are the numbers given here.
 */

/** Python's repr of a float (shortest round-trip digits, '1.0' not '1', '1e-05', '1e+16', NaN/Infinity bare). */
export function pythonFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mant, exp] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const e = Number(exp);
  if (e < -4 || e >= 16) {
    const rest = digits.slice(1);
    return `${sign}${digits[0]}${rest ? `.${rest}` : ''}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const point = e + 1;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

export type PyValue = string | number | boolean | null | { int: number } | PyValue[];

/** json.dumps(value, ensure_ascii=False) for the values a veRL dump holds; `{int: n}` is a Python int. */
export function pythonJson(v: PyValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return pythonFloat(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pythonJson).join(', ')}]`;
  return String(v.int);
}

export interface VerlGenerations {
  step: number;
  inputs: string[];
  outputs: string[];
  gts: (string | null)[] | null;
  scores: number[];
  /** Per-sample reward fields (e.g. acc); like veRL, only those with one value per sample are written. */
  rewardExtraInfos?: Record<string, PyValue[]>;
}

/** `{step}.jsonl`'s name and text. */
export function verlDumpGenerations(g: VerlGenerations): { name: string; text: string } {
  const n = g.inputs.length;
  const base: [string, PyValue[]][] = [
    ['input', g.inputs],
    ['output', g.outputs],
  ];
  if (g.gts) base.push(['gts', g.gts]);
  base.push(['score', g.scores], ['step', Array.from({ length: n }, () => ({ int: g.step }))]);
  for (const [k, v] of Object.entries(g.rewardExtraInfos ?? {})) if (v.length === n) base.push([k, v]);
  const lines: string[] = [];
  for (let i = 0; i < n; i++)
    lines.push(`{${base.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v[i]!)}`).join(', ')}}`);
  return { name: `${g.step}.jsonl`, text: `${lines.join('\n')}\n` };
}
