import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Backend } from '../engine/backend.ts';
import { createNodeBackend } from '../engine/backend-node.ts';
import { saveWeights, validateManifest, type Manifest } from '../model/checkpoint.ts';
import { Policy, type Weights } from '../model/policy.ts';
import { codecOf } from '../model/hf-codec.ts';
import { tokenizerFileNames, type TokenizerFiles } from '../model/text-codec.ts';
import { loadBase, type RunBase } from '../rl/run.ts';

/**
 * Reads a manifest and its weights from disk and hands the bytes to loadBase (src/rl/run.ts); errors name the file and
 * what is wrong.
 */
export function readCheckpoint(manifestPath: string): RunBase {
  let raw: string;
  try {
    raw = readFileSync(manifestPath, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why: Record<string, string> = {
      ENOENT: ': it does not exist',
      EISDIR: ': it is a folder; give the manifest.json in it',
      EACCES: ': no permission to read it',
    };
    throw new Error(`cannot read manifest ${manifestPath}${why[code ?? ''] ?? ''}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error(`${manifestPath}: not valid JSON`);
  }
  const manifest = validateManifest(json);
  const wpath = join(dirname(manifestPath), manifest.weights);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(wpath));
  } catch {
    throw new Error(`cannot read weights ${wpath} named by ${manifestPath}`);
  }
  const tokenizerFiles: TokenizerFiles = {};
  for (const f of tokenizerFileNames(manifest)) {
    const path = join(dirname(manifestPath), f);
    try {
      tokenizerFiles[f] = readFileSync(path, 'utf8');
    } catch {
      throw new Error(`cannot read the tokenizer file ${path} named by ${manifestPath}`);
    }
  }
  try {
    return loadBase(manifest, bytes, manifest.tokenizer.kind === 'hf' ? tokenizerFiles : undefined);
  } catch (e) {
    throw new Error(`${wpath}: ${(e as Error).message}`);
  }
}

export async function loadPolicy(
  manifestPath: string,
  backend: Backend = createNodeBackend(),
): Promise<{ manifest: Manifest; policy: Policy; tokenizerFiles?: TokenizerFiles }> {
  const { manifest, weights, tokenizerFiles } = readCheckpoint(resolve(manifestPath));
  const policy = await Policy.create(backend, manifest.model, manifest.layout, weights);
  policy.codec = codecOf(manifest, tokenizerFiles);
  return { manifest, policy, ...(tokenizerFiles ? { tokenizerFiles } : {}) };
}

/** manifest.json, the weights and, for a model with its own tokenizer, its tokenizer files beside them. */
export function writeCheckpoint(
  dir: string,
  manifest: Manifest,
  weights: Weights,
  tokenizerFiles?: TokenizerFiles,
): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, manifest.weights), saveWeights(manifest.model, weights, { name: manifest.name }));
  for (const f of tokenizerFileNames(manifest)) {
    const text = tokenizerFiles?.[f];
    if (typeof text !== 'string') throw new Error(`${manifest.name}: its tokenizer file ${f} was not given`);
    writeFileSync(join(dir, f), text);
  }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
}
