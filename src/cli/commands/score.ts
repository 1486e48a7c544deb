import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
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

/** Lines scored per run of the scoring graph. */
const BATCH = 16;

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
      const ctx = manifest.model.contextLength;
      ids.forEach((row, i) => {
        if (row.length > ctx)
          throw new Error(
            `${file}:${i + 1}: ${row.length} tokens, but the model reads at most ${ctx} (its context length)`,
          );
      });
      const longest = ids.reduce((m, row) => Math.max(m, row.length), 2);
      // One prompt column (each line's first token) and the rest as the completion being scored.
      policy.setLayout({ promptLen: 1, completionLen: longest - 1 });
      for (let start = 0; start < ids.length; start += BATCH) {
        const batch = ids.slice(start, start + BATCH);
        const scored = batch.filter((row) => row.length > 1);
        const res = scored.length
          ? await policy.score(
              scored.map((r) => [r[0]!]),
              scored.map((r) => r.slice(1)),
            )
          : { logp: [] };
        let k = 0;
        for (const row of batch) {
          const rest = row.length > 1 ? res.logp[k++]! : [];
          const logprobs = row.length ? [null, ...rest] : [];
          process.stdout.write(JSON.stringify({ ids: row, logprobs }) + '\n');
        }
      }
    } finally {
      await policy.dispose();
    }
    return 0;
  },
};
