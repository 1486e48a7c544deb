// What src/cli/import-llama.test.ts and import-llama-refusals.test.ts share: the Python side
// (scripts/setup-python.sh, .venv-py from this machine's local wheels; where the wheels are missing it
// exits 3 and the tests print a banner and are reported as skipped, never passed), the folders
// scripts/hf_llama_fixture.py makes with the real transformers and tokenizers, and the CLI.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, type TestContext } from 'vitest';

export const run = promisify(execFile);
export const root = resolve(import.meta.dirname, '..', '..');
/** This test file's scratch folder (each test file imports its own copy of this module). */
export const tmp = mkdtempSync(join(tmpdir(), 'rlvr-import-llama-'));

export interface Reference {
  vocab_size: number;
  lines: { ids: number[]; logprobs: (number | null)[] }[];
  logits: { ids: number[]; offset: number }[]; // transformers' logits [T, V] at `offset` in logits.f32
  strings: { text: string; ids: number[]; decoded: string }[];
  greedy: { prompt: number[]; tokens: number[] }[]; // transformers' generate(do_sample=False, max_new_tokens=8)
  chat: { messages: { role: string; content: string }[]; text: string };
}

let python: string | null = null;
let missing = '';

function banner(lines: string[]): void {
  const bar = '!'.repeat(100);
  process.stderr.write(`\n${bar}\n${lines.map((l) => `!!  ${l}`).join('\n')}\n${bar}\n\n`);
}

export function needPython(ctx: TestContext): string {
  if (!python) {
    banner([`SKIPPED: ${ctx.task.name}`, `the Llama/Qwen2 parity tests did not run: ${missing}`]);
    ctx.skip();
  }
  return python!;
}

export async function rlvr(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run('node', ['scripts/rlvr.mjs', ...args], { cwd: root, maxBuffer: 256 * 1024 * 1024 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

const fixtures = new Map<string, Promise<string>>();

/** The folder scripts/hf_llama_fixture.py writes for these arguments (made once per run). */
export function fixture(py: string, name: string, args: string[]): Promise<string> {
  if (!fixtures.has(name)) {
    const dir = join(tmp, name);
    const env = {
      ...process.env,
      HF_HOME: join(tmp, 'hf-home'),
      HF_HUB_OFFLINE: '1',
      TRANSFORMERS_OFFLINE: '1',
      OMP_NUM_THREADS: '1',
      TOKENIZERS_PARALLELISM: 'false',
    };
    fixtures.set(
      name,
      run(py, ['scripts/hf_llama_fixture.py', dir, ...args], {
        cwd: root,
        env,
        maxBuffer: 64 * 1024 * 1024,
        timeout: 600_000,
      }).then(() => dir),
    );
  }
  return fixtures.get(name)!;
}

export const reference = (dir: string) => JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as Reference;

/** scripts/setup-python.sh: the venv's python, or a loud banner and every test that needs it skipped. */
export function setupPython(): void {
  const r = spawnSync('bash', ['scripts/setup-python.sh'], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  if (r.status === 3) {
    missing = r.stderr.trim().split('\n').pop() ?? 'scripts/setup-python.sh exited 3';
    banner([
      'THE LLAMA/QWEN2 PARITY TESTS ARE SKIPPED: the Python wheels (torch, transformers, tokenizers) are missing.',
      missing,
      'src/cli/import-llama*.test.ts did NOT compare the engine with transformers.',
    ]);
    return;
  }
  if (r.status !== 0) throw new Error(`scripts/setup-python.sh failed (exit ${r.status ?? r.signal}):\n${r.stderr}`);
  python = resolve(root, r.stdout.trim().split('\n').pop()!);
}

export const CASES = [
  {
    name: 'llama',
    what: 'Llama: GQA 6/2 heads, untied head, BOS added by the post-processor, 17 safetensors shards',
    args: ['--arch', 'llama', '--shard-size', '20KB'],
  },
  {
    name: 'qwen2',
    what: 'Qwen2: q/k/v biases, tied embeddings, Qwen2 pre-tokenizer with NFC, one model.safetensors',
    args: ['--arch', 'qwen2', '--tied'],
  },
  {
    name: 'smollm2-135m',
    what:
      'the SmolLM2-135M shape: hidden 576, 30 layers, 9/3 heads, intermediate 1536, vocab 49152, rope_theta ' +
      '100000, tied',
    args: ['--arch', 'llama', '--shape', 'smollm2-135m', '--tied'],
  },
];

/** Throws with rlvr's stderr unless it exited 0. */
export function ok(r: { code: number; stderr: string }): void {
  if (r.code !== 0) throw new Error(`rlvr exited ${r.code}:\n${r.stderr}`);
}

export interface ScoredLine {
  ids: number[];
  logprobs: (number | null)[];
}

/**
 * `rlvr score` of the lines in `textFile` under `manifest`, against another tool's ids and log-probs of
 * the same lines: the ids equal, the first token null in both; returns the largest |log-prob difference|.
 */
export async function scoreAgainst(manifest: string, textFile: string, theirs: ScoredLine[]): Promise<number> {
  const scored = await rlvr('score', '--model', manifest, '--text-file', textFile);
  ok(scored);
  const ours = scored.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ScoredLine);
  expect(ours).toHaveLength(theirs.length);
  let worst = 0;
  ours.forEach((o, i) => {
    expect(o.ids).toEqual(theirs[i]!.ids);
    o.logprobs.forEach((x, t) => {
      const want = theirs[i]!.logprobs[t];
      if (want === null) return expect(x).toBeNull();
      worst = Math.max(worst, Math.abs(x! - want!));
    });
  });
  return worst;
}
