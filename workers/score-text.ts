/**
 * Score a text in the worker: an uploaded checkpoint (a Llama or Qwen2 folder the page imported, with
 * its own tokenizer, or one of ours) scores each line of a text on the worker's backend, through the
 * same code as `rlvr score` (src/model/score-lines.ts). The policy lives only for the call.
 */
import type { Backend } from '../src/engine/backend.ts';
import { Policy } from '../src/model/policy.ts';
import { codecOf } from '../src/model/hf-codec.ts';
import { checkLineLengths, scoreLines } from '../src/model/score-lines.ts';
import { loadBase } from '../src/rl/run.ts';
import type { ScoreTextRequest, ScoreTextResult } from './protocol.ts';

/** Lines a page request may score (each is one row of the scoring graph). */
export const SCORE_MAX_LINES = 200;

export async function scoreTextOn(backend: Backend, req: ScoreTextRequest): Promise<ScoreTextResult> {
  const t0 = performance.now();
  const utf8 = new TextDecoder();
  const files = Object.fromEntries(Object.entries(req.files).map(([f, b]) => [f, utf8.decode(b)]));
  const { manifest, weights, tokenizerFiles } = loadBase(req.manifest, req.bytes, files);
  const tok = codecOf(manifest, tokenizerFiles);
  const lines = req.text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop(); // a final newline ends the last line
  if (lines.length > SCORE_MAX_LINES)
    throw new Error(`${lines.length} lines: score at most ${SCORE_MAX_LINES} at a time`);
  const ids = lines.map((line) => tok.encodePrompt(line));
  checkLineLengths(ids, manifest.model.contextLength, (i) => `line ${i + 1}`);
  const policy = await Policy.create(backend, manifest.model, { promptLen: 1, completionLen: 1 }, weights);
  const out: ScoreTextResult['lines'] = [];
  try {
    await scoreLines(policy, ids, (line) => out.push({ ...line, tokens: line.ids.map((id) => tok.tokenText(id)) }));
  } finally {
    await policy.dispose();
  }
  return { lines: out, seconds: (performance.now() - t0) / 1000 };
}
