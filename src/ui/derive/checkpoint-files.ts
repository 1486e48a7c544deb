/**
 * Which of the files chosen for Load checkpoint is which part of a checkpoint. A playground checkpoint is
 * its manifest (`manifest.json`, or `NAME.manifest.json` as Save checkpoint names it) and its weights; a
 * Llama or Qwen2 checkpoint (`rlvr import --format hf`, `rlvr train`, Save checkpoint in the page) also has
 * the tokenizer files its manifest names (src/model/checkpoint.ts, HfTokenizerSpec).
 */
import type { HfTokenizerSpec } from '../../model/checkpoint.ts';

/** JSON files that sit beside a manifest in a checkpoint folder and are never the manifest. */
const BESIDE_MANIFEST = new Set([
  'tokenizer.json',
  'tokenizer_config.json',
  'generation_config.json',
  'special_tokens_map.json',
  'config.json',
]);

const isBeside = (name: string) =>
  BESIDE_MANIFEST.has(name) || [...BESIDE_MANIFEST].some((f) => name.endsWith(`.${f}`));

/** The manifest and the weights among the chosen files, or what is missing, said as the person chose. */
export function checkpointParts<F extends { name: string }>(files: F[]): { manifest: F; weights: F } {
  const weights = files.filter((f) => f.name.endsWith('.safetensors'));
  const named = files.filter((f) => f.name === 'manifest.json' || f.name.endsWith('.manifest.json'));
  const json = named.length ? named : files.filter((f) => f.name.endsWith('.json') && !isBeside(f.name));
  if (!json.length || !weights.length)
    throw new Error('choose both files of a checkpoint: its manifest (.json) and its weights (.safetensors)');
  if (json.length > 1)
    throw new Error(`choose one checkpoint at a time: ${json.map((f) => f.name).join(', ')} are each a manifest`);
  if (weights.length > 1)
    throw new Error(`choose one checkpoint at a time: ${weights.map((f) => f.name).join(', ')} are each weights`);
  return { manifest: json[0]!, weights: weights[0]! };
}

/** The file names a Hugging Face tokenizer spec names, relative to its manifest. */
export function tokenizerFileNames(spec: HfTokenizerSpec): string[] {
  return [spec.file, spec.config, spec.chatTemplate].filter((f): f is string => !!f);
}

/**
 * The tokenizer's files among the chosen ones, by the names the manifest gives them; a missing one is
 * named, with the manifest that asks for it.
 */
export function tokenizerParts<F extends { name: string }>(
  spec: HfTokenizerSpec,
  manifestName: string,
  files: F[],
): Map<string, F> {
  const found = new Map<string, F>();
  for (const name of tokenizerFileNames(spec)) {
    const f = files.find((x) => x.name === name || x.name.endsWith(`/${name}`));
    if (!f)
      throw new Error(
        `${manifestName} names its tokenizer's file ${name}: choose it too, with the manifest and the weights ` +
          '(or every file of the checkpoint folder)',
      );
    found.set(name, f);
  }
  return found;
}

const PLAIN = ['tokenizer_config.json', 'tokenizer.json', 'chat_template.jinja'];

/** A tokenizer file's own name, without the checkpoint name an earlier save put before it. */
const plainName = (name: string) => PLAIN.find((p) => name.endsWith(p)) ?? name.split('/').pop()!;

/**
 * A checkpoint's tokenizer files as Save checkpoint downloads them: each named after the checkpoint
 * (`BASE.tokenizer.json`), so that two saves do not collide, and the manifest names them so.
 */
export function savedTokenizer(
  spec: HfTokenizerSpec,
  base: string,
  files: Record<string, Uint8Array>,
): { spec: HfTokenizerSpec; files: Map<string, Uint8Array> } {
  const out = new Map<string, Uint8Array>();
  const rename = (name: string | undefined) => {
    if (!name) return undefined;
    const data = files[name];
    if (!data)
      throw new Error(
        `the tokenizer's file ${name} of this run's model is not in this page any more (another model was ` +
          'imported since, or the page was reloaded): import the model again, then Reset and Start',
      );
    const saved = `${base}.${plainName(name)}`;
    out.set(saved, data);
    return saved;
  };
  const file = rename(spec.file)!;
  const config = rename(spec.config);
  const chatTemplate = rename(spec.chatTemplate);
  return {
    spec: { ...spec, file, ...(config ? { config } : {}), ...(chatTemplate ? { chatTemplate } : {}) },
    files: out,
  };
}
