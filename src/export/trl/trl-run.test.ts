// The exported TRL project, run for real: `rlvr export --format hf` of a shipped checkpoint and
// `rlvr export --format trl` of a small config, then train_grpo.py under real TRL, transformers,
// accelerate and torch (CPU) for two playground steps, once as one process and once as two
// (accelerate launch, torch.distributed over gloo). For each run: the steps ran; every completion
// TRL logged (train_grpo.py --log_completions: output_dir/completions/*.parquet) got from TRL the
// rewards our TypeScript verifier gives the same text, and TRL's logged mean reward is their
// weighted mean; the saved model loads in transformers. Then the way back: the trained folder
// imports with `rlvr import --format hf` (its tensors exactly TRL's) and `rlvr eval` runs it.
// Each run also wrote its run record (train_grpo.py's default --record, output_dir/run.rlvr.gz):
// our reader decodes it, and it holds what TRL logged (completions, rewards, advantages, metrics),
// token ids that decode to the completions, and the sampling log-probs our engine gives the same tokens.
//
// The Python side comes from scripts/setup-python.sh (.venv-py, from this machine's local wheels).
// Where the wheels are missing it exits 3: these tests then print a banner and are reported as
// skipped, never passed.
//
// The runs' helpers are in trl-run-harness.ts, the checks of each run in trl-run-checks.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { exportHuggingFace } from '../../model/hf-export.ts';
import { readSafetensors } from '../../model/safetensors.ts';
import { readCheckpoint } from '../../node/checkpoint-files.ts';
import type { Difficulty } from '../../tasks/types.ts';
import { checkRecord, checkRun, type ExportedProject } from './trl-run-checks.ts';
import { launchOnceMoreAfterShutdownAbort } from './shutdown-abort.ts';
import {
  banner,
  execFileP,
  freePort,
  pyEnv,
  rlvr,
  root,
  RUN_TIMEOUT_MS,
  runLogged,
  STEPS,
  TASK,
  tmp,
} from './trl-run-harness.ts';

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// 2 prompts × 4 completions per playground step, one optimizer step each: 8 completions per optimizer
// step, so 8 per process on one process and 4 per process on two.
const SETTINGS = [
  'prompts_per_step=2',
  'num_generations=4',
  'minibatches=1',
  'num_iterations=1',
  'warmup_steps=0',
  'learning_rate=0.001',
];

let python: string | null = null;
let missing = '';
let hf = '';
let project = '';
let difficulty: Difficulty;
let rewardWeights: number[] = [];
let twoProcessLog = '';

function needPython(ctx: TestContext): string {
  if (!python) {
    banner([`SKIPPED: ${ctx.task.name}`, `the TRL tests did not run: ${missing}`]);
    ctx.skip();
  }
  return python!;
}

/** The exported project the checks read (set in beforeAll). */
function exportedProject(): ExportedProject {
  return { project, difficulty, rewardWeights };
}

beforeAll(async () => {
  const r = spawnSync('bash', ['scripts/setup-python.sh'], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  if (r.status === 3) {
    missing = r.stderr.trim().split('\n').pop() ?? 'scripts/setup-python.sh exited 3';
    banner([
      'THE TRL TESTS ARE SKIPPED: the Python wheels (torch, transformers, trl, accelerate, datasets) are missing.',
      missing,
      'src/export/trl/trl-run.test.ts did NOT check the exported project under real TRL.',
    ]);
    return;
  }
  if (r.status !== 0) throw new Error(`scripts/setup-python.sh failed (exit ${r.status ?? r.signal}):\n${r.stderr}`);
  python = resolve(root, r.stdout.trim().split('\n').pop()!);
  hf = join(tmp, 'hf');
  project = join(tmp, 'project');
  await rlvr(
    'export',
    '--format',
    'hf',
    '--model',
    join(root, `public/checkpoints/${TASK}-tiny/manifest.json`),
    '--out',
    hf,
  );
  const exported = JSON.parse(
    await rlvr(
      'export',
      '--format',
      'trl',
      '--task',
      TASK,
      ...SETTINGS.flatMap((s) => ['--set', s]),
      '--prompts',
      '16',
      '--out',
      project,
    ),
  ) as { difficulty: Difficulty };
  difficulty = exported.difficulty;
  const weights = await execFileP(
    python,
    ['-c', 'import rewards, json; print(json.dumps(rewards.TRL_REWARD_WEIGHTS))'],
    { cwd: project, env: pyEnv() },
  );
  rewardWeights = JSON.parse(weights.stdout);
  expect(rewardWeights).toHaveLength(3); // correctness, format, partial (no overlong penalty here)
}, 660_000);

describe('the exported TRL project under real TRL (CPU)', () => {
  it(
    "one process: python train_grpo.py runs the steps; TRL logged our verifier's rewards; the saved model loads",
    async (ctx) => {
      const py = needPython(ctx);
      const out = join(tmp, 'out-1');
      await runLogged(
        py,
        ['train_grpo.py', '--model', hf, '--steps', String(STEPS), '--output_dir', out, '--log_completions'],
        project,
      );
      await checkRun(py, out, 1, exportedProject());
    },
    RUN_TIMEOUT_MS + 60_000,
  );

  it(
    "two processes: accelerate launch --num_processes 2 (gloo) runs the same; TRL logged our verifier's " +
      'rewards; the saved model loads',
    async (ctx) => {
      const py = needPython(ctx);
      const out = join(tmp, 'out-2');
      // accelerate's --cpu launcher starts one process (several need mpirun); the torchrun launcher
      // (--multi_gpu) with ACCELERATE_USE_CPU=true starts two that train as one over gloo (MULTI_CPU).
      const accelerate = join(dirname(py), 'accelerate');
      const launch = async () => {
        const args = [
          'launch',
          '--multi_gpu',
          '--num_processes',
          '2',
          '--num_machines',
          '1',
          '--mixed_precision',
          'no',
          '--dynamo_backend',
          'no',
          '--main_process_port',
          String(await freePort()),
        ];
        return runLogged(
          accelerate,
          [...args, 'train_grpo.py', '--model', hf, '--steps', String(STEPS), '--output_dir', out, '--log_completions'],
          project,
          { ACCELERATE_USE_CPU: 'true' },
        );
      };
      twoProcessLog = await launchOnceMoreAfterShutdownAbort(launch, out);
      await checkRun(py, out, 2, exportedProject());
    },
    RUN_TIMEOUT_MS + 60_000,
  );

  it("one process: the run record train_grpo.py wrote decodes, with TRL's completions, rewards, advantages " +
    'and metrics, our token ids and sampling log-probs', async (ctx) => {
    const py = needPython(ctx);
    await checkRecord(py, join(tmp, 'out-1'), exportedProject());
  }, 120_000);

  it('two processes: the main process alone wrote the ' +
    "record, and it holds both processes' completions", async (ctx) => {
    const py = needPython(ctx);
    expect(twoProcessLog.match(/^run record: .*run\.rlvr\.gz \(2 steps\)$/gm)).toHaveLength(1);
    await checkRecord(py, join(tmp, 'out-2'), exportedProject());
  }, 120_000);

  it("the way back: the TRL-trained folder imports (rlvr import --format hf) with TRL's tensors exactly, and " +
    'rlvr eval runs it', async (ctx) => {
    needPython(ctx);
    const trained = existsSync(join(tmp, 'out-2', 'model.safetensors')) ? join(tmp, 'out-2') : join(tmp, 'out-1');
    expect(existsSync(join(trained, 'model.safetensors')), 'a TRL run above saved its model').toBe(true);
    const back = join(tmp, 'imported');
    const imported = JSON.parse(await rlvr('import', '--format', 'hf', trained, '--out', back)) as {
      manifest: string;
      unchanged: boolean;
      model: string;
    };
    expect(imported).toMatchObject({
      manifest: join(back, 'manifest.json'),
      unchanged: false,
      model: `${TASK}-tiny+hf`,
    });
    // Our checkpoint, exported again, holds exactly the tensors TRL saved.
    const { manifest, weights } = readCheckpoint(imported.manifest);
    const again = readSafetensors(
      exportHuggingFace(manifest, weights, { onnx: false }).get('model.safetensors')!,
    ).tensors;
    const saved = readSafetensors(new Uint8Array(readFileSync(join(trained, 'model.safetensors')))).tensors;
    expect([...saved.keys()].sort()).toEqual([...again.keys()].sort());
    for (const [name, t] of saved)
      expect(Buffer.compare(Buffer.from(t.data.buffer), Buffer.from(again.get(name)!.data.buffer)), name).toBe(0);
    // ... and they are trained weights, not the export's.
    const base = readSafetensors(new Uint8Array(readFileSync(join(hf, 'model.safetensors')))).tensors;
    expect(
      [...saved].some(
        ([name, t]) => Buffer.compare(Buffer.from(t.data.buffer), Buffer.from(base.get(name)!.data.buffer)) !== 0,
      ),
    ).toBe(true);
    const evaluated = JSON.parse(
      await rlvr('eval', '--model', imported.manifest, '--task', TASK, '--prompts', '4', '--n', '2', '--k', '1,2'),
    ) as { pass_at_k: Record<string, number>; model: string };
    expect(evaluated.model).toBe(`${TASK}-tiny+hf`);
    expect(Object.keys(evaluated.pass_at_k).sort()).toEqual(['1', '2']);
    for (const v of Object.values(evaluated.pass_at_k)) expect(v).toBeGreaterThanOrEqual(0);
    expect(readdirSync(back).sort()).toEqual(['manifest.json', 'model.safetensors']);
  }, 120_000);
});
