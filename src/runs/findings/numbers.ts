/** Small statistics the finding rules share. */

export const mean = (xs: readonly number[]): number => {
  const f = xs.filter((x) => Number.isFinite(x));
  return f.length ? f.reduce((a, b) => a + b, 0) / f.length : Number.NaN;
};

export const median = (xs: readonly number[]): number => {
  const f = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!f.length) return Number.NaN;
  const m = f.length >> 1;
  return f.length % 2 ? f[m]! : (f[m - 1]! + f[m]!) / 2;
};

/** The first `n` steps' share of a run of `steps`: at least one, at most a quarter (rounded up) of the run. */
export const earlyCount = (steps: number, fraction: number): number =>
  Math.max(1, Math.min(Math.ceil(steps * fraction), Math.ceil(steps / 4)));

/** A number as a person reads it: up to 3 significant digits. */
export const fmt = (x: number): string => {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toPrecision(3)));
};

/** A share as a percentage, no decimals. */
export const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** "step 4" or "steps 4-9". */
export const stepsText = (first: number, last: number): string =>
  first === last ? `step ${first}` : `steps ${first}-${last}`;
