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
  for (const k of ks)
    out[String(k)] = correctCounts.reduce((s, c) => s + passAtK(n, c, k), 0) / Math.max(1, correctCounts.length);
  return out;
}

/**
 * Standard error of held-out pass@1 = mean over P prompts of c_i / n, estimated from the prompts
 * themselves: sqrt(Σ (x_i − x̄)² / (P (P − 1))) with x_i = c_i / n. The spread of x_i holds both
 * sources of noise, so the samples per prompt are accounted for: Var(x_i) = σ²_prompts + E[p(1 − p)] / n,
 * i.e. SE² = (σ²_prompts + (p̄(1 − p̄) − σ²_prompts) / n) / P, between 0.25 / (nP) (every prompt alike)
 * and 0.25 / P (every prompt all right or all wrong) at p̄ = 0.5. NaN with fewer than two prompts.
 */
export function passAt1StandardError(correctCounts: number[], n: number): number {
  const P = correctCounts.length;
  if (P < 2 || n < 1) return NaN;
  const x = correctCounts.map((c) => c / n);
  const mean = x.reduce((a, b) => a + b, 0) / P;
  return Math.sqrt(x.reduce((a, v) => a + (v - mean) ** 2, 0) / (P * (P - 1)));
}
