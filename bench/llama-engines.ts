/**
 * The engines `rlvr bench --presets smollm2-135m` times (bench/llama.ts runs them): onnxruntime-node in
 * this process, Chromium's WASM EP in the bench page, and PyTorch eager + PEFT (bench/peft_peer.py), each
 * with the peak resident set of its process while a call runs.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRunner } from './core.ts';
import { ROOT, version } from './presets.ts';
import type { Bench, LlamaSample } from './session.ts';
import type { TorchPeer } from './torch.ts';

/** The project's Python (scripts/setup-python.sh) with torch, transformers and peft. */
export const PEFT_PYTHON = process.env.RLVR_PEFT_PYTHON || join(ROOT, '.venv-py/bin/python');

export interface LlamaEngine {
  id: string;
  label: string;
  threads: number;
  sample(round: number): Promise<LlamaSample>;
  update(): Promise<LlamaSample>;
  finish(): Promise<void>;
}

// ------------------------------------------------------------------------------------ process memory

const KIB = (pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number | null => {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
};

/** Resets the peak resident set (VmHWM) of the processes to their current one; false where Linux refuses. */
function resetPeak(pids: (number | 'self')[]): boolean {
  try {
    for (const p of pids) writeFileSync(`/proc/${p}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Times `f` and the peak resident set of `pids` (summed) while it runs. */
async function measured<T>(
  pids: () => (number | 'self')[],
  f: () => Promise<T>,
): Promise<{ r: T; ms: number; rss_before_mib: number | null; peak_rss_mib: number | null }> {
  const ps = pids();
  const sum = (field: 'VmRSS' | 'VmHWM') => {
    const xs = ps.map((p) => KIB(p, field));
    return xs.every((x) => x !== null) && xs.length ? (xs as number[]).reduce((a, b) => a + b, 0) / 1024 : null;
  };
  const before = sum('VmRSS');
  const ok = resetPeak(ps);
  const t0 = performance.now();
  const r = await f();
  const ms = performance.now() - t0;
  return { r, ms, rss_before_mib: before, peak_rss_mib: ok ? sum('VmHWM') : null };
}

/** Chromium's renderer processes started by this process (the bench page and its workers live there). */
function rendererPids(): number[] {
  const parent = new Map<number, number>();
  const renderers: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('--type=renderer')) renderers.push(Number(d));
    } catch {
      // the process ended meanwhile
    }
  }
  const ours = (p: number) => {
    for (let q = p, n = 0; q > 1 && n < 64; q = parent.get(q) ?? 0, n++) if (q === process.pid) return true;
    return false;
  };
  return renderers.filter(ours);
}

// ------------------------------------------------------------------------------------------- engines

export class NodeLlama implements LlamaEngine {
  constructor(
    readonly runner: BenchRunner,
    readonly threads: number,
  ) {}
  get id() {
    return `node@${this.threads}`;
  }
  get label() {
    return (
      `onnxruntime-node ${version('onnxruntime-node')} ` + `CPU, ${this.threads} thread${this.threads === 1 ? '' : 's'}`
    );
  }
  async sample(): Promise<LlamaSample> {
    const m = await measured(
      () => ['self'],
      () => this.runner.sample(1),
    );
    return {
      s: m.r.ms / 1000,
      tokens: m.r.rows * m.r.genSteps,
      rss_before_mib: m.rss_before_mib,
      peak_rss_mib: m.peak_rss_mib,
    };
  }
  async update(): Promise<LlamaSample> {
    const m = await measured(
      () => ['self'],
      () => this.runner.update(),
    );
    return { s: m.r.ms / 1000, tokens: m.r.tokens, rss_before_mib: m.rss_before_mib, peak_rss_mib: m.peak_rss_mib };
  }
  async finish() {
    await this.runner.dispose();
  }
}

export class PeftLlama implements LlamaEngine {
  constructor(
    readonly peer: TorchPeer,
    readonly threads: number,
    readonly versions: string,
    readonly files: { batch: string; sampling: string },
    readonly positions: () => number,
    readonly rows: number,
  ) {}
  get id() {
    return `torch@${this.threads}`;
  }
  get label() {
    return `PyTorch ${this.versions} eager CPU, ${this.threads} thread${this.threads === 1 ? '' : 's'}`;
  }
  async sample(round: number): Promise<LlamaSample> {
    const x = await this.peer.call({
      cmd: 'sample',
      id: 'llama',
      batch: this.files.sampling,
      steps: this.positions(),
      seed: 1 + round,
    });
    return {
      s: (x.ms as number) / 1000,
      tokens: this.rows * (x.steps as number),
      rss_before_mib: x.rss_before_mib as number,
      peak_rss_mib: (x.peak_rss_mib as number | null) ?? null,
    };
  }
  async update(): Promise<LlamaSample> {
    const x = await this.peer.call({ cmd: 'update', id: 'llama', batch: this.files.batch });
    return {
      s: (x.ms as number) / 1000,
      tokens: x.tokens as number,
      rss_before_mib: x.rss_before_mib as number,
      peak_rss_mib: (x.peak_rss_mib as number | null) ?? null,
    };
  }
  async finish() {
    await this.peer.close();
  }
}

export class WasmLlama implements LlamaEngine {
  constructor(
    readonly b: Bench,
    readonly preset: string,
  ) {}
  get id() {
    return 'wasm';
  }
  get threads() {
    return this.b.wasmThreads;
  }
  get label() {
    return `Chromium WASM EP (onnxruntime-web ${version('onnxruntime-web')}), ${this.b.wasmThreads} threads`;
  }
  private async call(cmd: 'sample' | 'update'): Promise<Record<string, unknown>> {
    const req = cmd === 'sample' ? { cmd, preset: this.preset, seed: 1 } : { cmd, preset: this.preset };
    return this.b.browser!.call('wasm', req);
  }
  async sample(): Promise<LlamaSample> {
    const m = await measured(rendererPids, () => this.call('sample'));
    return {
      s: (m.r.ms as number) / 1000,
      tokens: (m.r.rows as number) * (m.r.genSteps as number),
      rss_before_mib: m.rss_before_mib,
      peak_rss_mib: m.peak_rss_mib,
    };
  }
  async update(): Promise<LlamaSample> {
    const m = await measured(rendererPids, () => this.call('update'));
    return {
      s: (m.r.ms as number) / 1000,
      tokens: m.r.tokens as number,
      rss_before_mib: m.rss_before_mib,
      peak_rss_mib: m.peak_rss_mib,
    };
  }
  async finish() {
    await this.b.browser!.call('wasm', { cmd: 'dispose', preset: this.preset });
  }
}

// ---------------------------------------------------------------------------------------------- run
