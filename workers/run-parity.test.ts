// The CLI (`rlvr train` through runTraining) and the worker's session drive the same run pipeline
// (src/rl/run.ts): the same config and seed must give identical metrics and evaluations.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runTraining } from '../src/cli/training-run.ts';
import { createNodeBackend } from '../src/engine/backend-node.ts';
import { readRunRecord, type RunRecord } from '../src/record/run-record.ts';
import type { RunConfig } from '../src/rl/config.ts';
import type { SessionEvent } from './protocol.ts';
import { TrainingSession } from './training-session.ts';

const STEPS = 10;
const manifestPath = resolve('public/checkpoints/sat-tiny/manifest.json');
const user: Partial<RunConfig> = {
  task: 'sat',
  prompts_per_step: 2,
  num_generations: 4,
  max_completion_length: 24,
  eval_every: 4,
  eval_prompts: 2,
  seed: 7,
  beta: 0.02,
};
/** Wall-clock measurements differ between any two runs; everything else must not. */
const timeless = (m: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(m).filter(
      ([k]) => !k.startsWith('time/') && !k.startsWith('tokens_per_second') && k !== 'wall_time',
    ),
  );

describe('one run pipeline: CLI path and worker session agree', () => {
  it(`same config and seed: identical metrics for ${STEPS} steps and identical evaluations`, async () => {
    const out = mkdtempSync(join(tmpdir(), 'rlvr-parity-'));
    try {
      const cli = await runTraining({
        user: { layers: [{ source: { kind: 'flag', flag: '--set' }, values: user }] },
        modelPath: manifestPath,
        steps: STEPS,
        out,
        rollouts: 'all',
        record: { path: join(out, 'run.rlvr.gz'), checkpointSteps: [] },
        backend: createNodeBackend(1),
        label: 'grpo',
        command: 'parity test',
      });
      const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as Record<string, unknown> & {
              step: number;
              eval?: Record<string, number>;
              eval_pass1_se?: number;
            },
        );
      const cliMetrics = lines
        .filter((l) => 'reward' in l)
        .map(({ eval: _e, eval_pass1_se: _s, difficulty: _d, advantage_histogram: _h, ...m }) => timeless(m));
      const cliEvals = lines
        .filter((l) => l.eval)
        .map((l) => ({ step: l.step, pass_at_k: l.eval, pass1_se: l.eval_pass1_se }));
      const rollouts = readFileSync(join(out, 'rollouts.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { step: number });

      const events: SessionEvent[] = [];
      const s = new TrainingSession({
        createBackend: async () => createNodeBackend(1),
        fetchBytes: async (url) => new Uint8Array(await readFile(fileURLToPath(url))),
        flushMs: 1,
      });
      s.subscribe((batch) => events.push(...batch));
      const init = await s.init({
        config: user,
        checkpoint: { kind: 'shipped', id: 'sat-tiny', manifestUrl: pathToFileURL(manifestPath).href },
        backend: null,
        stepBudget: STEPS,
      });
      expect(init.config).toEqual(cli.config);
      s.start();
      while (s.status().state !== 'done') {
        expect(s.status().state).not.toBe('paused');
        await new Promise((ok) => setTimeout(ok, 20));
      }
      const session = s.metricsHistory();

      // One step convention: steps count updates done; step 0 is the base's evaluation.
      expect(cliMetrics.map((m) => m.step)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
      expect(cliEvals.map((e) => e.step)).toEqual([0, 4, 8, 10]);
      expect(new Set(rollouts.map((r) => r.step))).toEqual(new Set(cliMetrics.map((m) => m.step)));
      expect(session.metrics.map(timeless)).toEqual(cliMetrics);
      expect(session.evals).toEqual(cliEvals);
      expect(cli.initial_pass_at_k).toEqual(session.evals[0]!.pass_at_k);
      expect(cli.final_pass_at_k).toEqual(session.evals.at(-1)!.pass_at_k);
      // not a constant stream
      expect(new Set(cliMetrics.map((m) => m['completions/mean_length'])).size).toBeGreaterThan(1);

      // The trained checkpoints match too (same weights; the manifests differ only by name and command).
      const saved = await s.saveCheckpoint();
      expect(saved.bytes.length).toBeGreaterThan(0);
      const cliManifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
      expect({ ...saved.manifest, name: '', training: { ...saved.manifest.training, command: '' } }).toEqual({
        ...cliManifest,
        name: '',
        training: { ...cliManifest.training, command: '' },
      });

      // One writer: the worker's run record (Keep & share) holds what `rlvr train --record` wrote, but for provenance
      // and wall-clock times.
      const cliRecord = (await readRunRecord(new Uint8Array(readFileSync(join(out, 'run.rlvr.gz'))))).record;
      const sessionRecord = (await readRunRecord(await s.runRecord())).record;
      const comparable = ({ provenance, steps, ...rest }: RunRecord) => ({
        ...rest,
        base: provenance.base,
        steps: steps.map((x) => ({ ...x, metrics: timeless(x.metrics) })),
      });
      expect(cliRecord.provenance.writer).toBe('rlvr train');
      expect(sessionRecord.provenance.writer).toBe('playground');
      expect(cliRecord.rollouts.map((r) => r.step)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
      expect(comparable(sessionRecord)).toEqual(comparable(cliRecord));
      await s.stop();
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 600_000);
});
