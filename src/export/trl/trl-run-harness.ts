// The Node side of src/export/trl/trl-run.test.ts: the CLI, the venv's Python run with nothing reaching
// the network, a free port for accelerate, and what TRL left in its output_dir (completion logs and
// trainer state, the saved model loaded in transformers). Each test file that imports this module gets
// its own scratch folder (`tmp`).
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const execFileP = promisify(execFile);
export const root = resolve(import.meta.dirname, '..', '..', '..');
export const tmp = mkdtempSync(join(tmpdir(), 'rlvr-trl-run-'));

export const TASK = 'arithmetic';
export const STEPS = 2;
export const RUN_TIMEOUT_MS = 300_000;

/** Nothing reaches the network; caches and accelerate's config live in the test's folder. */
export function pyEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
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

export function banner(lines: string[]): void {
  const bar = '!'.repeat(100);
  process.stderr.write(`\n${bar}\n${lines.map((l) => `!!  ${l}`).join('\n')}\n${bar}\n\n`);
}

export async function rlvr(...args: string[]): Promise<string> {
  const r = await execFileP('node', ['scripts/rlvr.mjs', ...args], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  return r.stdout;
}

export async function freePort(): Promise<number> {
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
export async function runLogged(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<string> {
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

export interface Logged {
  step: number;
  prompt: string;
  completion: string;
  correctness_reward: number;
  format_reward: number;
  partial_reward: number;
  advantage: number;
}

/** TRL's completion logs and trainer state, read with the venv's pandas. */
export async function readRun(
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
    'states = sorted(glob.glob(os.path.join(out, "checkpoint-*", "trainer_state.json")), key=lambda p: ' +
      'int(p.rsplit("-", 1)[1].split(os.sep)[0]))',
    'print(json.dumps({"logged": rows, "state": json.load(open(states[-1]))}))',
  ].join('\n');
  const r = await execFileP(py, ['-c', script, out], { env: pyEnv(), maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(r.stdout);
}

/** Loads the saved folder with transformers and generates from one prompt: the saved model loads and runs. */
export async function loadsInTransformers(
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
    'print(json.dumps({"vocab_size": m.config.vocab_size, "generated": g.shape[1] - ids.shape[1], ' +
      '"rlvr_checkpoint": m.config.rlvr_playground["checkpoint"]}))',
  ].join('\n');
  const r = await execFileP(py, ['-c', script, out, '12+34='], { env: pyEnv(), maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}
