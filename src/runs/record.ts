/**
 * The playground's own run record (`*.rlvr.gz`, src/record/run-record.ts) behind the same OpenedRun: its
 * rollouts with every per-token channel, its step metrics and held-out evals as curves. A record is one
 * gzip stream, so it is read whole, by the one decode of a record file's bytes that the page's recordings use too
 * (decodeRecordFile, src/record/record-file.ts; it refuses files over the reader's own cap).
 */
import type { RolloutRecord } from '../rl/rollout.ts';
import { decodeRecordFile, type RunRecord } from '../record/run-record.ts';
import { readRange, RunReadError, why } from './files.ts';
import type { RunSource, StepRows } from './opened-run.ts';
import type { MetricPoint, RunCompletion, RunFiles, RunIndex, RunProblem } from './types.ts';

/**
 * Whether each of a step's rows had its trainer log-probs (newLogp) computed before any update of its batch.
 * The playground's trainer records the last pass over each minibatch (src/rl/trainer.ts, src/rl/step-records.ts):
 * minibatch k of the last of num_iterations passes comes after (num_iterations - 1) x minibatches + k updates,
 * so only the first minibatch of a one-pass step saw the sampling weights. TRL (the Python recorder,
 * python/rlvr_playground/trainer.py) shuffles a batch before splitting it into steps_per_generation parts, so
 * its rows are known to have been before an update only when the batch was one part of one pass.
 */
export function beforeUpdate(record: RunRecord, step: number, rows: number): boolean[] {
  const config = { ...record.config };
  for (const change of record.config_changes) if (change.step < step) Object.assign(config, change.changed);
  const iterations = config.num_iterations ?? 1;
  if (config.task === 'trl') {
    const parts = Math.max(1, config.steps_per_generation ?? 1);
    return new Array<boolean>(rows).fill(iterations === 1 && parts === 1);
  }
  const perMinibatch = rows / Math.max(1, config.minibatches ?? 1);
  return Array.from({ length: rows }, (_, r) => iterations === 1 && r < perMinibatch);
}

/** A rollout of the record as a completion of the common shape. */
export function recordCompletion(r: RolloutRecord, row: number, newLogprobsBeforeUpdate?: boolean): RunCompletion {
  const rewards: Record<string, number> = Object.keys(r.components).length ? { ...r.components } : { reward: r.reward };
  return {
    row,
    prompt: r.prompt,
    completion: r.completion,
    rewards,
    reward: r.reward,
    advantage: r.advantage,
    length: r.tokens.length,
    lengthUnit: 'tokens',
    truncated: r.truncated,
    tokens: {
      text: r.tokenText,
      ids: r.tokens,
      logprobs: r.oldLogp,
      newLogprobs: r.newLogp,
      ...(newLogprobsBeforeUpdate === undefined ? {} : { newLogprobsBeforeUpdate }),
      ...(r.refLogp ? { refLogprobs: r.refLogp } : {}),
      entropy: r.entropy,
      ratio: r.ratio,
      clipped: r.clipped,
    },
    // The playground-only fields only where they say something: a TRL record's hint is empty, hinted
    // false and flipped null for every row, and listing them claims knobs that run never had.
    extra: {
      group: r.group,
      ...(r.hint ? { hint: r.hint } : {}),
      correct: r.correct,
      reason: r.reason,
      ...(r.hinted ? { hinted: r.hinted } : {}),
      ...(r.flipped != null ? { flipped: r.flipped } : {}),
      kl: r.kl,
    },
  };
}

/** The record's step metrics and held-out pass@k as curve points, one per step. */
export function recordMetrics(record: RunRecord): MetricPoint[] {
  const byStep = new Map<number, Record<string, number>>();
  for (const s of record.steps) {
    const values = byStep.get(s.step) ?? {};
    for (const [k, v] of Object.entries(s.metrics)) if (typeof v === 'number') values[k] = v;
    byStep.set(s.step, values);
  }
  for (const e of record.evals) {
    const values = byStep.get(e.step) ?? {};
    for (const [k, v] of Object.entries(e.pass_at_k)) values[`pass@${k}`] = v;
    byStep.set(e.step, values);
  }
  return [...byStep.entries()].sort((a, b) => a[0] - b[0]).map(([step, values]) => ({ step, values }));
}

/** The record reader over one file (`path` in `files`). */
export function recordSource(files: RunFiles, path: string, name: string): RunSource {
  let record: RunRecord | null = null;
  let seenSize = -1;
  let result: RunIndex | null = null;

  async function index(): Promise<RunIndex> {
    const entry = (await files.list()).find((f) => f.path === path);
    if (!entry) throw new RunReadError(path, `${path}: the file is no longer there`);
    if (result && entry.size === seenSize) return result;
    seenSize = entry.size;
    const problems: RunProblem[] = [];
    const notes: string[] = [];
    record = null;
    try {
      const decoded = await decodeRecordFile(await readRange(files, path));
      if (decoded.ok) {
        record = decoded.record;
        notes.push(...decoded.notes);
      } else problems.push({ file: path, message: `${path}: ${decoded.error}` });
    } catch (e) {
      problems.push({ file: path, message: e instanceof RunReadError ? e.message : `${path}: ${why(e)}` });
    }
    const rewardNames: string[] = [];
    const steps: number[] = [];
    if (record) {
      const p = record.provenance;
      notes.push(
        `Written by ${p.writer} (${p.command}) on ${p.created}, from ${p.base.name}.${p.note ? ` ${p.note}` : ''}`,
      );
      for (const r of record.rollouts) {
        if (!steps.includes(r.step)) steps.push(r.step);
        for (const rec of r.records)
          for (const k of Object.keys(rec.components).length ? Object.keys(rec.components) : ['reward'])
            if (!rewardNames.includes(k)) rewardNames.push(k);
      }
      steps.sort((a, b) => a - b);
    }
    result = {
      name,
      format: 'record',
      steps,
      metrics: record ? recordMetrics(record) : [],
      rewardNames,
      problems,
      notes,
    };
    return result;
  }

  async function readRows(step: number): Promise<StepRows> {
    const rows = (record?.rollouts ?? []).filter((r) => r.step === step).flatMap((r) => r.records);
    if (!rows.length) throw new RunReadError(path, `${path}: no rollouts for step ${step}`);
    const before = beforeUpdate(record!, step, rows.length);
    return {
      rows: rows.map((r, i) => recordCompletion(r, i, before[i])),
      groupOf: rows.map((r) => r.group),
      problems: [],
    };
  }

  return { index, readRows };
}
