import { help, runBench } from '../../../bench/cli.ts';
import type { Command } from './command.ts';

/** `rlvr bench`: the benchmark itself lives with its peers and browser page in bench/ (bench/cli.ts). */
export const benchCommand: Command = {
  name: 'bench',
  summary: 'benchmark sampling, update and a whole GRPO step on node / browser WASM / WebGPU against a PyTorch peer',
  help,
  run: runBench,
};
