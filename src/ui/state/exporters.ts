/** Metrics and rollouts as files: CSV, JSONL, and the browser download. */
import type { EvalPoint, RolloutRecord, StepMetrics } from '../../../workers/protocol.ts';
import { metricKeys } from '../../rl/metrics.ts';

/**
 * One row per step; columns are the union of metric names (step first, then the metric table's keys
 * in its order, src/rl/metrics.ts, then any others such as reward components, sorted), plus held-out
 * pass@k where measured. Steps count updates done: row 0 holds only the base policy's evaluation, and an
 * evaluation measured after update s sits on row s (the same convention as metrics.jsonl).
 */
export function metricsCsv(metrics: StepMetrics[], evals: EvalPoint[]): string {
  const evalAt = new Map(evals.map((e) => [e.step, e.pass_at_k]));
  const keys = new Set<string>();
  for (const m of metrics) for (const k of Object.keys(m)) if (k !== 'step') keys.add(k);
  const ks = new Set<string>();
  for (const e of evals) for (const k of Object.keys(e.pass_at_k)) ks.add(k);
  const evalCols = [...ks].sort((a, b) => Number(a) - Number(b));
  const known = metricKeys.filter((k) => keys.has(k));
  const cols = ['step', ...known, ...[...keys].filter((k) => !(known as string[]).includes(k)).sort()];
  const quote = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = [[...cols, ...evalCols.map((k) => `eval/pass@${k}`)].map(quote).join(',')];
  const initial = evalAt.get(0);
  if (initial)
    lines.push(
      [
        ...cols.map((c) => (c === 'step' ? '0' : '')),
        ...evalCols.map((k) => (initial[k] === undefined ? '' : String(initial[k]))),
      ].join(','),
    );
  for (const m of metrics) {
    const e = evalAt.get(m.step);
    lines.push(
      [
        ...cols.map((c) => (m[c] === undefined ? '' : String(m[c]))),
        ...evalCols.map((k) => (e?.[k] === undefined ? '' : String(e[k]))),
      ].join(','),
    );
  }
  return lines.join('\n') + '\n';
}

/** One JSON object per step, the same shape `rlvr train` writes to metrics.jsonl (eval where measured). */
export function metricsJsonl(metrics: StepMetrics[], evals: EvalPoint[]): string {
  const evalAt = new Map(
    evals.map((e) => [
      e.step,
      { eval: e.pass_at_k, ...(e.pass1_se === undefined ? {} : { eval_pass1_se: e.pass1_se }) },
    ]),
  );
  const lines: string[] = [];
  const initial = evalAt.get(0);
  if (initial) lines.push(JSON.stringify({ step: 0, ...initial }));
  for (const m of metrics) {
    const e = evalAt.get(m.step);
    lines.push(JSON.stringify(e ? { ...m, ...e } : m));
  }
  return lines.join('\n') + '\n';
}

export function rolloutsJsonl(records: RolloutRecord[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

/** Offers bytes or text as a file download. */
export function download(name: string, data: string | Uint8Array, type = 'application/octet-stream'): void {
  const blob = new Blob([typeof data === 'string' ? data : new Uint8Array(data)], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
