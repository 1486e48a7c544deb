import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Backend } from '../engine/backend.ts';
import { createNodeBackend } from '../engine/backend-node.ts';
import { saveWeights, validateManifest, type Manifest } from '../model/checkpoint.ts';
import { Policy, type Weights } from '../model/policy.ts';
import { loadBase } from '../rl/run.ts';

/** Reads a manifest and its weights from disk and hands the bytes to loadBase (src/rl/run.ts); errors name the file and what is wrong. */
export function readCheckpoint(manifestPath: string): { manifest: Manifest; weights: Weights } {
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
  try {
    return loadBase(manifest, bytes);
  } catch (e) {
    throw new Error(`${wpath}: ${(e as Error).message}`);
  }
}

export async function loadPolicy(
  manifestPath: string,
  backend: Backend = createNodeBackend(),
): Promise<{ manifest: Manifest; policy: Policy }> {
  const { manifest, weights } = readCheckpoint(resolve(manifestPath));
  const policy = await Policy.create(backend, manifest.model, manifest.layout, weights);
  if (manifest.tokenizer.kind === 'hf') policy.stopTokens = new Set(manifest.tokenizer.eosTokenIds);
  return { manifest, policy };
}

export function writeCheckpoint(dir: string, manifest: Manifest, weights: Weights): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, manifest.weights), saveWeights(manifest.model, weights, { name: manifest.name }));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
}
