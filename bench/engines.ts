/**
 * The engines `rlvr bench` alternates between: onnxruntime-node, the PyTorch peer (bench/torch.ts)
 * and Chromium's WASM / WebGPU EPs (bench/browser/driver.ts), each timing one metric per call.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfig } from '../src/rl/config.ts';
import type { BrowserBench } from './browser/driver.ts';
import type { UpdateBatch } from './batches.ts';
import type { BenchRunner, CheckValues } from './core.ts';
import { version, WORK, type Metric, type PresetSetup, type Sample } from './presets.ts';
import type { TorchPeer } from './torch.ts';

/** What every engine of one preset shares. */
export interface PresetCtx {
  id: string;
  setup: PresetSetup;
  config: RunConfig;
  batch: UpdateBatch;
  batchFile: string;
  samplingFile: string;
  /** Our node engine's logp/loss/grad norm of the first update on `batch`. */
  ours: CheckValues;
  /** Decode positions the last node sampling run needed (PyTorch generates that many, EOS ignored). */
  positions: number;
  /** The node runner whose trainer's next prompts the PyTorch step uses. */
  primary: BenchRunner;
  stepFiles: number;
}

export interface Engine {
  id: string;
  family: 'node' | 'torch' | 'wasm' | 'webgpu';
  threads: number;
  label: string;
  rows: number;
  run(m: Metric, round: number): Promise<Sample>;
  finish(): Promise<void>;
}

export class NodeEngine implements Engine {
  family = 'node' as const;
  rows: number;
  constructor(
    readonly runner: BenchRunner,
    readonly threads: number,
    private readonly ctx: { current: PresetCtx | null },
  ) {
    this.rows = runner.config.prompts_per_step * runner.config.num_generations;
  }
  get id() {
    return `node@${this.threads}`;
  }
  get label() {
    return (
      `onnxruntime-node ${version('onnxruntime-node')} ` + `CPU, ${this.threads} thread${this.threads === 1 ? '' : 's'}`
    );
  }
  async run(m: Metric): Promise<Sample> {
    if (m === 'sampling') {
      const x = await this.runner.sample(1);
      this.ctx.current!.positions = x.genSteps;
      return { s: x.ms / 1000, tokens: x.rows * x.genSteps, extra: { kept_tokens: x.tokens, positions: x.genSteps } };
    }
    if (m === 'update') {
      const x = await this.runner.update();
      return { s: x.ms / 1000, tokens: x.tokens };
    }
    const x = await this.runner.step();
    return {
      s: x.ms / 1000,
      tokens: x.sampled_tokens,
      extra: { sampling_s: x.sampling_ms / 1000, update_s: x.update_ms / 1000, accuracy: x.accuracy },
    };
  }
  async finish() {
    await this.runner.dispose();
  }
}

export class TorchEngine implements Engine {
  family = 'torch' as const;
  constructor(
    readonly peer: TorchPeer,
    readonly threads: number,
    readonly torchVersion: string,
    readonly rows: number,
    private readonly ctx: { current: PresetCtx | null },
  ) {}
  get id() {
    return `torch@${this.threads}`;
  }
  get label() {
    return `PyTorch ${this.torchVersion} eager CPU + OpenBLAS, ${this.threads} thread${this.threads === 1 ? '' : 's'}`;
  }
  async run(m: Metric, round: number): Promise<Sample> {
    const c = this.ctx.current!;
    const id = c.id;
    if (m === 'sampling') {
      const x = await this.peer.call({ cmd: 'sample', id, batch: c.samplingFile, steps: c.positions, seed: 1 + round });
      return {
        s: (x.ms as number) / 1000,
        tokens: c.batch.rows * (x.steps as number),
        extra: { positions: x.steps as number },
      };
    }
    if (m === 'update') {
      const x = await this.peer.call({ cmd: 'update', id, batch: c.batchFile });
      return { s: (x.ms as number) / 1000, tokens: x.tokens as number };
    }
    // The same prompts our trainer takes next, so both sample the same task instances.
    const f = join(WORK, `step-${id}-${this.threads}-${c.stepFiles++}.json`);
    writeFileSync(f, JSON.stringify(c.primary.nextStepBatch()));
    const x = await this.peer.call({ cmd: 'step', id, batch: f, seed: 2000 + round });
    return {
      s: (x.ms as number) / 1000,
      tokens: x.sampled_tokens as number,
      extra: {
        sampling_s: (x.sampling_ms as number) / 1000,
        update_s: (x.update_ms as number) / 1000,
        accuracy: x.accuracy as number,
      },
    };
  }
  async finish() {}
}

export class BrowserEngine implements Engine {
  constructor(
    readonly browser: BrowserBench,
    readonly family: 'wasm' | 'webgpu',
    readonly threads: number,
    readonly label: string,
    readonly rows: number,
    private readonly preset: string,
  ) {}
  get id() {
    return this.family;
  }
  async run(m: Metric): Promise<Sample> {
    const kind = this.family;
    const preset = this.preset;
    if (m === 'sampling') {
      const x = await this.browser.call(kind, { cmd: 'sample', preset, seed: 1 });
      return {
        s: (x.ms as number) / 1000,
        tokens: (x.rows as number) * (x.genSteps as number),
        extra: { kept_tokens: x.tokens as number, positions: x.genSteps as number },
      };
    }
    if (m === 'update') {
      const x = await this.browser.call(kind, { cmd: 'update', preset });
      return { s: (x.ms as number) / 1000, tokens: x.tokens as number };
    }
    const x = await this.browser.call(kind, { cmd: 'step', preset });
    return {
      s: (x.ms as number) / 1000,
      tokens: x.sampled_tokens as number,
      extra: {
        sampling_s: (x.sampling_ms as number) / 1000,
        update_s: (x.update_ms as number) / 1000,
        accuracy: x.accuracy as number,
      },
    };
  }
  async finish() {
    await this.browser.call(this.family, { cmd: 'dispose', preset: this.preset });
  }
}
