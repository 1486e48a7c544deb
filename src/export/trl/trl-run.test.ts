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
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { readCheckpoint } from '../../node/checkpoint-files.ts';
import { createNodeBackend } from '../../engine/backend-node.ts';
import { exportHuggingFace } from '../../model/hf-export.ts';
import { Policy } from '../../model/policy.ts';
import { readSafetensors } from '../../model/safetensors.ts';
import { decode, encode, EOS, tokenText } from '../../model/tokenizer.ts';
import { validateConfig } from '../../rl/config.ts';
import { decodeRunRecord, type RunRecord } from '../../record/run-record.ts';
import { getTaskFamily } from '../../tasks/registry.ts';
import type { Difficulty } from '../../tasks/types.ts';

const execFileP = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'rlvr-trl-run-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const TASK = 'arithmetic';
const STEPS = 2;
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
const RUN_TIMEOUT_MS = 300_000;

let python: string | null = null;
let missing = '';
let hf = '';
let project = '';
let difficulty: Difficulty;
let rewardWeights: number[] = [];
let twoProcessLog = '';

/** Nothing reaches the network; caches and accelerate's config live in the test's folder. */
function pyEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...extra,
    HF_HOME: join(tmp, 'hf-home'),
    HF_HUB_OFFLINE: '1',
    HF_DATASETS_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    WANDB_DISABLED: 'true',
    WANDB_MODE: 'disabled',
    TOKENIZERS_PARALLELISM: 'false',
    OMP_NUM_THREADS: '1',
    PYTHONUNBUFFERED: '1',
  };
}

function banner(lines: string[]): void {
  const bar = '!'.repeat(100);
  process.stderr.write(`\n${bar}\n${lines.map((l) => `!!  ${l}`).join('\n')}\n${bar}\n\n`);
}

function needPython(ctx: TestContext): string {
  if (!python) {
    banner([`SKIPPED: ${ctx.task.name}`, `the TRL tests did not run: ${missing}`]);
    ctx.skip();
  }
  return python!;
}

async function rlvr(...args: string[]): Promise<string> {
  const r = await execFileP('node', ['scripts/rlvr.mjs', ...args], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  return r.stdout;
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

/** Runs a command to its end; on a non-zero exit the error carries the output's tail. */
async function runLogged(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  try {
    const r = await execFileP(cmd, args, {
      cwd,
      env: pyEnv(env),
      maxBuffer: 256 * 1024 * 1024,
      timeout: RUN_TIMEOUT_MS,
    });
    return r.stdout + r.stderr;
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${x.code ?? x.message}):\n${(x.stdout ?? '') + (x.stderr ?? '')}`.slice(
        -12_000,
      ),
    );
  }
}

interface Logged {
  step: number;
  prompt: string;
  completion: string;
  correctness_reward: number;
  format_reward: number;
  partial_reward: number;
  advantage: number;
}

/** TRL's completion logs and trainer state, read with the venv's pandas. */
async function readRun(
  py: string,
  out: string,
): Promise<{
  logged: Logged[];
  state: { global_step: number; train_batch_size: number; log_history: Record<string, number>[] };
}> {
  const script = [
    'import glob, json, os, sys',
    'import pandas as pd',
    'out = sys.argv[1]',
    'rows = []',
    'for f in sorted(glob.glob(os.path.join(out, "completions", "completions_*.parquet"))):',
    '    rows += pd.read_parquet(f).to_dict("records")',
    'states = sorted(glob.glob(os.path.join(out, "checkpoint-*", "trainer_state.json")), key=lambda p: int(p.rsplit("-", 1)[1].split(os.sep)[0]))',
    'print(json.dumps({"logged": rows, "state": json.load(open(states[-1]))}))',
  ].join('\n');
  const r = await execFileP(py, ['-c', script, out], { env: pyEnv(), maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(r.stdout);
}

/** Loads the saved folder with transformers and generates from one prompt: the saved model loads and runs. */
async function loadsInTransformers(
  py: string,
  out: string,
): Promise<{ vocab_size: number; generated: number; rlvr_checkpoint: string }> {
  const script = [
    'import json, sys, torch',
    'from transformers import AutoModelForCausalLM, AutoTokenizer',
    'm = AutoModelForCausalLM.from_pretrained(sys.argv[1]); t = AutoTokenizer.from_pretrained(sys.argv[1])',
    'ids = t(sys.argv[2], return_tensors="pt").input_ids',
    'torch.manual_seed(0)',
    'g = m.generate(ids, max_new_tokens=8, do_sample=True, pad_token_id=t.pad_token_id)',
    'print(json.dumps({"vocab_size": m.config.vocab_size, "generated": g.shape[1] - ids.shape[1], "rlvr_checkpoint": m.config.rlvr_playground["checkpoint"]}))',
  ].join('\n');
  const r = await execFileP(py, ['-c', script, out, '12+34='], { env: pyEnv(), maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

/** The checks both runs share: steps, TRL's logged rewards against our verifier, the saved model. */
async function checkRun(py: string, out: string, processes: number): Promise<void> {
  const { logged, state } = await readRun(py, out);
  expect(state.global_step).toBe(STEPS);
  // per device: 8 completions per optimizer step split over the processes
  expect(state.train_batch_size).toBe(8 / processes);
  const steps = state.log_history.filter((h) => 'reward' in h);
  expect(steps.map((h) => h.step)).toEqual([1, 2]);
  // Every step's completions, gathered from all processes.
  for (let s = 1; s <= STEPS; s++) expect(logged.filter((l) => l.step === s)).toHaveLength(8);

  const fam = getTaskFamily(TASK);
  const rows = readFileSync(join(project, 'prompts.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { prompt: string; data: string; seed: number });
  const byPrompt = new Map(rows.map((r) => [r.prompt, r]));
  expect(byPrompt.size).toBe(rows.length); // prompts identify their instance
  const mismatches: string[] = [];
  for (const l of logged) {
    const row = byPrompt.get(l.prompt);
    expect(row, `TRL logged a prompt that is not in prompts.jsonl: ${JSON.stringify(l.prompt)}`).toBeDefined();
    const inst = fam.generate(row!.seed, difficulty);
    expect(JSON.stringify(inst.data)).toBe(row!.data);
    const v = fam.verify(inst, l.completion).components;
    // TRL holds rewards in a float32 tensor (rewards_per_func), so it logs them rounded to float32.
    const ours = [v.correctness, v.format, v.partial ?? 0].map(Math.fround);
    const trl = [l.correctness_reward, l.format_reward, l.partial_reward];
    if (ours.some((x, i) => x !== trl[i]))
      mismatches.push(`${JSON.stringify(l.completion)}: TRL logged ${trl}, our verifier ${ours}`);
  }
  expect(mismatches).toEqual([]);
  // The completions are not all alike: the comparison covers more than one verdict.
  expect(
    new Set(logged.map((l) => `${l.correctness_reward},${l.format_reward},${l.partial_reward}`)).size,
  ).toBeGreaterThan(1);
  // TRL's logged mean reward per step is the reward-weighted sum of our components, averaged.
  for (const h of steps) {
    const mine = logged
      .filter((l) => l.step === h.step)
      .map(
        (l) =>
          rewardWeights[0]! * l.correctness_reward +
          rewardWeights[1]! * l.format_reward +
          rewardWeights[2]! * l.partial_reward,
      );
    expect(h.reward).toBeCloseTo(mine.reduce((a, b) => a + b, 0) / mine.length, 5);
  }
  const loaded = await loadsInTransformers(py, out);
  expect(loaded).toEqual({ vocab_size: 102, generated: 8, rlvr_checkpoint: `${TASK}-tiny` });
}

/**
 * The run record train_grpo.py wrote (output_dir/run.rlvr.gz), decoded by our reader, against what TRL
 * logged in the same run and what our tokenizer, verifier and engine say of the same tokens.
 */
async function checkRecord(py: string, out: string): Promise<RunRecord> {
  const file = join(out, 'run.rlvr.gz');
  expect(existsSync(file), `train_grpo.py wrote no run record at ${file}`).toBe(true);
  const decoded = await decodeRunRecord(new Uint8Array(readFileSync(file)));
  if (!decoded.ok) throw new Error(decoded.error);
  const { record, notes } = decoded;
  expect(notes).toEqual([]); // every metric key it holds is one of ours
  expect(record.provenance).toMatchObject({ writer: 'trl train_grpo.py', base: { name: `${TASK}-tiny` } });
  expect(record.provenance.command).toMatch(/^train_grpo\.py --model .* --steps 2 /);
  const baseManifest = JSON.parse(readFileSync(join(root, `public/checkpoints/${TASK}-tiny/manifest.json`), 'utf8'));
  expect(record.provenance.base.manifest).toEqual(baseManifest);
  // The config: the run config the project was exported from.
  const exported = validateConfig(JSON.parse(readFileSync(join(project, 'run_config.json'), 'utf8')));
  expect(record.config).toEqual(exported);
  expect(record.config).toMatchObject({ task: TASK, prompts_per_step: 2, num_generations: 4, learning_rate: 0.001 });

  const { logged, state } = await readRun(py, out);
  expect(record.steps.map((s) => s.step)).toEqual([1, 2]);
  expect(record.rollouts.map((r) => [r.step, r.records.length])).toEqual([
    [1, 8],
    [2, 8],
  ]);
  const fam = getTaskFamily(TASK);
  const rows = readFileSync(join(project, 'prompts.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { prompt: string; seed: number });
  const seedOf = new Map(rows.map((r) => [r.prompt, r.seed]));
  const w = rewardWeights.map(Math.fround); // TRL's reward_weights tensor is float32
  for (const { step, records } of record.rollouts) {
    const trl = logged.filter((l) => l.step === step);
    expect(records).toHaveLength(trl.length);
    records.forEach((r, i) => {
      const at = `step ${step}, completion ${i}`;
      const l = trl[i]!;
      // TRL's completions table is in the gathered order the record keeps (groups of num_generations).
      expect([r.group, r.index], at).toEqual([Math.floor(i / 4), i % 4]);
      expect(r.prompt, at).toBe(l.prompt);
      expect(r.completion, at).toBe(l.completion);
      expect(r.advantage, at).toBe(l.advantage);
      expect(r.components, at).toEqual({
        correctness: Math.fround(w[0]! * l.correctness_reward),
        format: Math.fround(w[1]! * l.format_reward),
        partial: Math.fround(w[2]! * l.partial_reward),
      });
      expect(r.reward, at).toBeCloseTo(
        w[0]! * l.correctness_reward + w[1]! * l.format_reward + w[2]! * l.partial_reward,
        6,
      );
      // Token ids in our tokenizer: they decode to the completion, EOS last (no completion was cut off at 64 tokens here).
      expect(decode(r.tokens), at).toBe(r.completion);
      expect(r.tokenText, at).toEqual(r.tokens.map(tokenText));
      expect(r.tokens.at(-1), at).toBe(EOS);
      expect(r.truncated, at).toBe(false);
      // The sampling log-probs: one per token, finite, at most 0.
      expect(r.oldLogp, at).toHaveLength(r.tokens.length);
      for (const x of r.oldLogp) {
        expect(Number.isFinite(x), at).toBe(true);
        expect(x, at).toBeLessThanOrEqual(0);
      }
      expect(r.correct, at).toBe(fam.verify(fam.generate(seedOf.get(r.prompt)!, difficulty), r.completion).correct);
    });
    expect(records.every((r) => records[r.group * 4]!.prompt === r.prompt)).toBe(true);
    expect(records.some((r) => r.oldLogp.some((x) => x < -0.01))).toBe(true); // not all zeros
  }
  // Step 1 was sampled from the base checkpoint: our engine gives its tokens the log-probs TRL's model did.
  const ckpt = readCheckpoint(join(root, `public/checkpoints/${TASK}-tiny/manifest.json`));
  const policy = await Policy.create(createNodeBackend(1), ckpt.manifest.model, ckpt.manifest.layout, ckpt.weights);
  try {
    const first = record.rollouts[0]!.records;
    const ours = (
      await policy.score(
        first.map((r) => encode(r.prompt)),
        first.map((r) => r.tokens),
        record.config.temperature,
      )
    ).logp;
    let worst = 0;
    first.forEach((r, i) => r.oldLogp.forEach((x, j) => (worst = Math.max(worst, Math.abs(x - ours[i]![j]!)))));
    expect(worst).toBeLessThan(1e-4); // 4e-6 measured
  } finally {
    await policy.dispose();
  }
  // The metrics TRL logged that mean what ours mean, under our keys.
  const logs = state.log_history.filter((h) => 'reward' in h);
  for (const s of record.steps) {
    const h = logs.find((x) => x.step === s.step)!;
    const m = s.metrics;
    for (const k of [
      'reward',
      'completions/mean_length',
      'completions/max_length',
      'completions/min_length',
      'completions/clipped_ratio',
      'entropy',
      'clip_ratio/region_mean',
      'grad_norm',
      'loss',
      'frac_reward_zero_std',
    ])
      expect(m[k], `step ${s.step} ${k}`).toBe(h[k]);
    expect(m['reward_std']).toBeCloseTo(h['reward_std']! * Math.sqrt(7 / 8), 12); // TRL's is the n − 1 one
    expect(m['rewards/correctness/mean']).toBeCloseTo(rewardWeights[0]! * h['rewards/correctness_reward/mean']!, 6);
    const recs = record.rollouts.find((r) => r.step === s.step)!.records;
    expect(m['accuracy']).toBe(recs.filter((r) => r.correct).length / recs.length);
    expect(m['reward']).toBeCloseTo(recs.reduce((a, r) => a + r.reward, 0) / recs.length, 6);
    expect(m).not.toHaveProperty('learning_rate'); // TRL logs the next step's rate: not ours
    expect(s.advantage_histogram!.counts.reduce((a, b) => a + b, 0)).toBe(8);
  }
  return record;
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
      await checkRun(py, out, 1);
    },
    RUN_TIMEOUT_MS + 60_000,
  );

  it(
    "two processes: accelerate launch --num_processes 2 (gloo) runs the same; TRL logged our verifier's rewards; the saved model loads",
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
      try {
        twoProcessLog = await launch();
      } catch (e) {
        // Seen in fresh-clone CI with the other test files loading both cores: after both processes had
        // trained and saved, the second aborted at shutdown ("terminate called without an active
        // exception", a C++ thread destroyed while joinable). One more launch, from scratch; any other
        // failure, or the same one twice, fails the test.
        if (!/terminate called without an active exception/.test(String(e))) throw e;
        console.warn('two-process launch: a process aborted at shutdown after training; launching once more');
        rmSync(out, { recursive: true, force: true });
        twoProcessLog = await launch();
      }
      await checkRun(py, out, 2);
    },
    RUN_TIMEOUT_MS + 60_000,
  );

  it("one process: the run record train_grpo.py wrote decodes, with TRL's completions, rewards, advantages and metrics, our token ids and sampling log-probs", async (ctx) => {
    const py = needPython(ctx);
    await checkRecord(py, join(tmp, 'out-1'));
  }, 120_000);

  it("two processes: the main process alone wrote the record, and it holds both processes' completions", async (ctx) => {
    const py = needPython(ctx);
    expect(twoProcessLog.match(/^run record: .*run\.rlvr\.gz \(2 steps\)$/gm)).toHaveLength(1);
    await checkRecord(py, join(tmp, 'out-2'));
  }, 120_000);

  it("the way back: the TRL-trained folder imports (rlvr import --format hf) with TRL's tensors exactly, and rlvr eval runs it", async (ctx) => {
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
