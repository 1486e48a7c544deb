import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkLineLengths, scoreLines } from '../../model/score-lines.ts';
import { loadPolicy } from '../../node/checkpoint-files.ts';
import { flagUsage, parseFlags, requireFlag, type FlagTable } from '../args.ts';
import type { Command } from './command.ts';

const FLAGS: FlagTable = {
  model: { value: 'MANIFEST', help: "the checkpoint's manifest.json (rlvr import --format hf writes one)" },
  'text-file': { value: 'F', help: 'the text to score, one line per output line' },
};

const help = `rlvr score --model MANIFEST --text-file F
  Prints one JSON line per line of F: {"ids": [...], "logprobs": [...]}, the model's tokens of that
  line (its own tokenizer: an imported folder's tokenizer.json, with the special tokens it adds, or the
  playground's characters) and each token's log-probability given the tokens before it, at temperature
  1; the first token gets null. An empty line gives {"ids": [], "logprobs": []} when the tokenizer adds
  no tokens of its own.
${flagUsage(FLAGS)}`;

export const scoreCommand: Command = {
  name: 'score',
  summary: "print each line's tokens and their log-probabilities under a checkpoint (JSON lines)",
  help,
  modes: [{ argv: [], flags: FLAGS }],
  async run(argv) {
    const a = parseFlags(argv, FLAGS);
    const manifestPath = resolve(requireFlag(a, 'model'));
    const file = resolve(requireFlag(a, 'text-file'));
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new Error(`cannot read --text-file ${file}`);
    }
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop(); // the file's final newline ends the last line
    const { manifest, policy } = await loadPolicy(manifestPath);
    try {
      const tokenize = (line: string) => policy.codec.encodePrompt(line);
      const ids = lines.map((line, i) => {
        try {
          return tokenize(line);
        } catch (e) {
          throw new Error(`${file}:${i + 1}: ${(e as Error).message}`);
        }
      });
      checkLineLengths(ids, manifest.model.contextLength, (i) => `${file}:${i + 1}`);
      await scoreLines(policy, ids, (line) => process.stdout.write(JSON.stringify(line) + '\n'));
    } finally {
      await policy.dispose();
    }
    return 0;
  },
};
