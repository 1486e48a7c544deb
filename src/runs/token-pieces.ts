/**
 * Token ids as the run's own pieces: where a run folder holds the model's `tokenizer.json` (and
 * `tokenizer_config.json`, as save_pretrained writes them), each id is decoded alone by that tokenizer
 * (src/model/bpe-tokenizer.ts); where it holds none, the ids are shown as `[id]` (step-lines.ts).
 */
import { BpeTokenizer } from '../model/bpe-tokenizer.ts';
import { isRecord, readRange, utf8, why } from './files.ts';
import type { RunFiles, RunProblem } from './types.ts';

async function jsonFile(files: RunFiles, path: string, size: number): Promise<Record<string, unknown>> {
  const text = utf8(await readRange(files, path, 0, size));
  if (text === null) throw new Error(`${path}: not UTF-8 text`);
  const v: unknown = JSON.parse(text);
  if (!isRecord(v)) throw new Error(`${path}: not a JSON object`);
  return v;
}

/** Each id's piece by the folder's tokenizer.json, or undefined (with a problem where one is there but unusable). */
export async function folderTokenText(
  files: RunFiles,
  problems: RunProblem[],
): Promise<((ids: number[]) => string[]) | undefined> {
  const listed = await files.list();
  const json = listed.find((f) => f.path === 'tokenizer.json');
  if (!json) return undefined;
  const config = listed.find((f) => f.path === 'tokenizer_config.json');
  try {
    const tok = new BpeTokenizer(
      await jsonFile(files, json.path, json.size),
      config ? await jsonFile(files, config.path, config.size) : {},
    );
    const cache = new Map<number, string>();
    return (ids) =>
      ids.map((id) => {
        let piece = cache.get(id);
        if (piece === undefined) {
          piece = tok.decode([id]);
          cache.set(id, piece);
        }
        return piece;
      });
  } catch (e) {
    problems.push({
      file: 'tokenizer.json',
      message: `tokenizer.json: could not be used to decode the run's token ids (${why(e)}); ids are shown instead`,
    });
    return undefined;
  }
}
