// The rlvr_playground Python package (python/), installed with pip the way its README says, records a
// real TRL 1.13 GRPO run of a model that is not the playground's: a random-init Qwen2ForCausalLM whose
// byte-level BPE tokenizer is trained here with the `tokenizers` library and extended to 70,000
// tokens, so ids need 32 bits (recorder/tiny_model.py). Trained with RecordingGRPOTrainer
// (recorder/train_recorded.py) on one process (3 steps) and under `accelerate launch` on two
// (2 generation batches of 2 updates each, num_iterations = 2, so ratios move). The one record each
// run writes is decoded by decodeRunRecord and held against what the tools themselves say
// (recorder/check_record.py): the tokenizer's ids and token texts, transformers' own forward pass of
// the saved checkpoints (log-probs within 1e-4), and TRL's completions parquet and log_history.
//
// The Python side comes from scripts/setup-python.sh (exit 3 without the wheels: a banner, and the
// tests are reported as skipped, never passed).
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { decodeRunRecord, type RunRecord } from '../../record/run-record.ts';
import type { RolloutRecord } from '../../rl/rollout.ts';
import { launchOnceMoreAfterShutdownAbort } from './shutdown-abort.ts';

const execFileP = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..', '..');
const scripts = join(root, 'src', 'export', 'trl', 'recorder');
const tmp = mkdtempSync(join(tmpdir(), 'rlvr-recorder-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const RUN_TIMEOUT_MS = 300_000;
const TOLERANCE = 1e-4;

let python: string | null = null;
let missing = '';
const model = join(tmp, 'model');
const site = join(tmp, 'site');

function pyEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...extra,
    HF_HOME: join(tmp, 'hf-home'),
    HF_HUB_OFFLINE: '1',
    HF_DATASETS_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    WANDB_MODE: 'disabled',
    TOKENIZERS_PARALLELISM: 'false',
    OMP_NUM_THREADS: '1',
    PYTHONUNBUFFERED: '1',
    // The package as pip installed it (below), not the source folder.
    PYTHONPATH: site,
  };
}

function needPython(ctx: TestContext): string {
  if (!python) {
    const bar = '!'.repeat(100);
    const why = `!!  the recording trainer was NOT run under TRL: ${missing}`;
    process.stderr.write(`\n${bar}\n!!  SKIPPED: ${ctx.task.name}\n${why}\n${bar}\n\n`);
    ctx.skip();
  }
  return python!;
}

interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to the command's stdin; its stdout alone is returned then. */
  input?: string;
}

async function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<string> {
  try {
    const env = pyEnv(opts.env);
    const limits = { maxBuffer: 256 * 1024 * 1024, timeout: RUN_TIMEOUT_MS };
    const p = execFileP(cmd, args, { cwd: opts.cwd ?? tmp, env, ...limits });
    if (opts.input !== undefined) {
      p.child.stdin!.write(opts.input);
      p.child.stdin!.end();
    }
    const r = await p;
    return r.stdout + (opts.input === undefined ? r.stderr : '');
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string; message: string };
    const output = (x.stdout ?? '') + (x.stderr ?? '');
    throw new Error(`${cmd} ${args.join(' ')} failed (${x.code ?? x.message}):\n${output}`.slice(-12_000));
  }
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

beforeAll(async () => {
  const setup = spawnSync('bash', ['scripts/setup-python.sh'], { cwd: root, encoding: 'utf8' });
  if (setup.status !== 0) {
    const last = setup.stderr.trim().split('\n').pop();
    missing =
      setup.status === 3
        ? `the Python wheels are missing (scripts/setup-python.sh: ${last})`
        : `scripts/setup-python.sh failed:\n${setup.stderr}`;
    return;
  }
  python = resolve(root, setup.stdout.trim().split('\n').pop()!);
  // Offline, with the environment's own setuptools: what python/README.md tells a user to run. From a
  // copy, so setuptools' build folders land in the test's folder, not the checkout.
  cpSync(join(root, 'python'), join(tmp, 'python-src'), { recursive: true });
  const offline = ['--no-build-isolation', '--no-index', '--no-deps'];
  await run(python, ['-m', 'pip', 'install', '--quiet', ...offline, '--target', site, join(tmp, 'python-src')]);
  await run(python, [join(scripts, 'tiny_model.py'), model]);
}, 900_000); // a pip install and a model built in Python: minutes when the machine is loaded

interface Checked {
  rollouts: { token_text: string[]; completion: string; logps: Record<string, number[]> }[];
  parquet: Record<string, number | string>[];
  log_history: Record<string, number>[];
  vocab: number;
}

async function train(out: string, steps: number, iterations: number, processes: number): Promise<void> {
  const script = [join(scripts, 'train_recorded.py'), model, out, String(steps), String(iterations)];
  if (processes === 1) {
    await run(python!, script);
    return;
  }
  // accelerate's --cpu launcher starts one process; --multi_gpu with ACCELERATE_USE_CPU runs torchrun over gloo.
  const accelerate = join(dirname(python!), 'accelerate');
  const args = ['launch', '--multi_gpu', '--num_processes', String(processes), '--num_machines', '1'];
  args.push('--mixed_precision', 'no', '--dynamo_backend', 'no', '--main_process_port', String(await freePort()));
  const launch = () => run(accelerate, [...args, ...script], { env: { ACCELERATE_USE_CPU: 'true' } });
  await launchOnceMoreAfterShutdownAbort(launch, out);
}

async function readRecord(out: string): Promise<RunRecord> {
  const file = join(out, 'run.rlvr.gz');
  expect(existsSync(file), `no run record at ${file}`).toBe(true);
  const decoded = await decodeRunRecord(new Uint8Array(readFileSync(file)));
  if (!decoded.ok) throw new Error(decoded.error);
  return decoded.record;
}

/** What the tools say of every recorded rollout, with the log-probs at the given weights steps. */
async function check(out: string, rollouts: { r: RolloutRecord; at: number[] }[]): Promise<Checked> {
  const job = { model, out, rollouts: rollouts.map(({ r, at }) => ({ prompt: r.prompt, tokens: r.tokens, at })) };
  return JSON.parse(await run(python!, [join(scripts, 'check_record.py')], { input: JSON.stringify(job) }));
}

const maxGap = (a: number[], b: number[]) => {
  expect(a).toHaveLength(b.length);
  return Math.max(...a.map((x, i) => Math.abs(x - b[i]!)));
};

/** The checks both runs share; `newAt`/`oldAt`: the weights step of a record step's trained and sampling policy. */
type WeightsAt = (step: number) => number;

async function checkRun(out: string, record: RunRecord, perStep: number, newAt: WeightsAt, oldAt: WeightsAt) {
  expect(record.version).toBe(2);
  expect(record.provenance.writer).toBe('trl RecordingGRPOTrainer');
  const qwen = { architecture: 'Qwen2ForCausalLM', model_type: 'qwen2', vocab_size: 70_000 };
  expect(record.provenance.base.model).toMatchObject(qwen);
  const at = (step: number) => [newAt(step), oldAt(step), newAt(step) + 1];
  const all = record.rollouts.flatMap((s) => s.records.map((r) => ({ r, at: at(s.step) })));
  for (const s of record.rollouts) expect(s.records).toHaveLength(perStep);
  // Ids past 16 bits are there and survive (the format's u32 tokens).
  expect(Math.max(...all.flatMap(({ r }) => r.tokens))).toBeGreaterThan(0xffff);
  const got = await check(out, all);
  expect(got.vocab).toBe(70_000);

  all.forEach(({ r, at }, i) => {
    const t = got.rollouts[i]!;
    const where = `step ${r.step} rollout ${r.group}/${r.index}`;
    expect(r.tokenText, where).toEqual(t.token_text);
    expect(r.completion, where).toBe(t.completion);
    expect(maxGap(r.newLogp, t.logps[String(at[0])]!), `${where}: trained policy's log-probs`).toBeLessThan(TOLERANCE);
    expect(maxGap(r.oldLogp, t.logps[String(at[1])]!), `${where}: sampling policy's log-probs`).toBeLessThan(TOLERANCE);
    // The comparison can tell weights apart: the next checkpoint's log-probs are elsewhere.
    const next = maxGap(r.newLogp, t.logps[String(at[2])]!);
    expect(next, `${where}: the next checkpoint`).toBeGreaterThan(100 * TOLERANCE);
  });

  // Each step's rows are TRL's completions parquet rows of the same step, in order.
  for (const s of record.rollouts) {
    const rows = got.parquet.filter((p) => p.step === s.step);
    expect(rows, `parquet rows of step ${s.step}`).toHaveLength(perStep);
    s.records.forEach((r, j) => {
      const p = rows[j]!;
      expect(r.prompt).toBe(p.prompt);
      expect(r.completion).toBe(p.completion);
      expect(r.advantage).toBe(p.advantage);
      expect(r.components).toEqual({ digits: p.digits, has_tag: p.has_tag });
      expect(r.reward).toBeCloseTo((p.digits as number) + (p.has_tag as number), 6);
    });
  }
  // The step's metrics are TRL's logs of the updates the batch made, averaged.
  record.steps.forEach((st, i) => {
    const after = i > 0 ? record.steps[i - 1]!.step : 0;
    // One log per update (logging_steps = 1); the rewards are logged with the update after generation only.
    const logs = got.log_history.filter((h) => 'loss' in h && h.step! > after && h.step! <= st.step);
    expect(logs).toHaveLength(st.step - after);
    const metrics = st.metrics as unknown as Record<string, number>;
    const keys = ['reward', 'reward_std', 'rewards/digits/mean', 'rewards/has_tag/mean', 'grad_norm', 'entropy'];
    keys.push('loss');
    for (const key of keys) {
      const have = logs.filter((h) => key in h);
      expect(have.length, `step ${st.step}: ${key} logged`).toBeGreaterThan(0);
      const mean = have.reduce((a, h) => a + h[key]!, 0) / have.length;
      expect(metrics[key], `step ${st.step}: ${key}`).toBeCloseTo(mean, 6);
    }
  });
}

describe('rlvr_playground.RecordingGRPOTrainer: the run record of any causal LM TRL trains', () => {
  const one = "one process: 3 steps; token ids and texts are the tokenizer's, log-probs transformers', rewards TRL's";
  it(one, async (ctx) => {
    needPython(ctx);
    const out = join(tmp, 'one');
    const started = Date.now();
    await train(out, 3, 1, 1);
    process.stderr.write(`recorder-run: one process, 3 steps: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    const record = await readRecord(out);
    expect(record.steps.map((s) => s.step)).toEqual([1, 2, 3]);
    // num_iterations = 1: step k samples and trains at the weights after k − 1 updates; the ratio is 1.
    await checkRun(
      out,
      record,
      8,
      (s) => s - 1,
      (s) => s - 1,
    );
    for (const r of record.rollouts.flatMap((s) => s.records)) {
      expect(r.ratio.every((x) => x === 1)).toBe(true);
      expect(r.trained.every(Boolean)).toBe(true);
    }
  }, 600_000);

  const two = "two processes (accelerate launch): one record holds both processes' rollouts; num_iterations = 2";
  it(two, async (ctx) => {
    needPython(ctx);
    const out = join(tmp, 'two');
    const started = Date.now();
    await train(out, 4, 2, 2);
    process.stderr.write(`recorder-run: two processes, 4 updates: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    const record = await readRecord(out);
    // Two generation batches of 2 updates each: recorded at TRL's global steps 2 and 4.
    expect(record.steps.map((s) => s.step)).toEqual([2, 4]);
    expect(record.provenance.note).toMatch(/on 2 processes/);
    // 12 rows per batch: 6 per process, 3 groups of 4, the middle one split between the processes.
    // The recorded pass is the last: trained at the weights after step − 1 updates, sampled after step − 2.
    await checkRun(
      out,
      record,
      12,
      (s) => s - 1,
      (s) => s - 2,
    );
    const rollouts = record.rollouts.flatMap((s) => s.records);
    const places = [0, 1, 2].flatMap((g) => [0, 1, 2, 3].map((i) => `${g}/${i}`));
    expect(rollouts.map((r) => `${r.group}/${r.index}`).slice(0, 12)).toEqual(places);
    // The ratio is TRL's exp(new − old) with its old log-probs (the same weights as the sampling ones here).
    for (const r of rollouts) {
      expect(
        maxGap(
          r.ratio,
          r.newLogp.map((x, i) => Math.exp(x - r.oldLogp[i]!)),
        ),
      ).toBeLessThan(1e-3);
    }
    expect(rollouts.some((r) => r.ratio.some((x) => Math.abs(x - 1) > 1e-3))).toBe(true);
    // The clipped side is where TRL's clip_ratio counts it: outside [1 − ε, 1 + ε_high], by the advantage's sign.
    for (const r of rollouts) {
      r.ratio.forEach((x, i) => {
        const want = x < 1 - 0.1 && r.advantage < 0 ? 'low' : x > 1 + 0.2 && r.advantage > 0 ? 'high' : null;
        expect(r.clipped[i]).toBe(want);
      });
    }
  }, 600_000);
});
