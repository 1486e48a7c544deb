/**
 * Unbiased pass@k estimator (Chen et al., 2021): with n samples of which c are correct,
 * pass@k = 1 - C(n-c, k) / C(n, k), computed as a stable product.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new Error(`pass@k: k (${k}) exceeds the number of samples n (${n})`);
  if (n - c < k) return 1;
  let prod = 1;
  for (let i = n - c + 1; i <= n; i++) prod *= 1 - k / i;
  return 1 - prod;
}

/** Mean pass@k over prompts, for each k. Keys are k as strings (the CLI's JSON contract). */
export function meanPassAtK(correctCounts: number[], n: number, ks: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of ks) out[String(k)] = correctCounts.reduce((s, c) => s + passAtK(n, c, k), 0) / Math.max(1, correctCounts.length);
  return out;
}
