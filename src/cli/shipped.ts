import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateManifest, type Manifest } from '../model/checkpoint.ts';

/** Base checkpoints shipped with the app, one folder each under public/checkpoints/. */
export const checkpointsDir = resolve(fileURLToPath(new URL('../../public/checkpoints', import.meta.url)));

export function shippedManifests(): { path: string; manifest: Manifest }[] {
  if (!existsSync(checkpointsDir)) return [];
  return readdirSync(checkpointsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(checkpointsDir, d.name, 'manifest.json')))
    .map((d) => {
      const path = join(checkpointsDir, d.name, 'manifest.json');
      return { path, manifest: validateManifest(JSON.parse(readFileSync(path, 'utf8'))) };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** The shipped checkpoint for a task (the first whose manifest lists it). */
export function shippedFor(task: string): string {
  const hit = shippedManifests().find((m) => m.manifest.tasks.some((t) => t.task === task));
  if (!hit)
    throw new Error(`no shipped base checkpoint lists task "${task}"; pass --model MANIFEST (see "rlvr models")`);
  return hit.path;
}

/** Rewrites public/checkpoints/index.json, the list the browser app reads. */
export function writeShippedIndex(): void {
  const entries = shippedManifests().map(({ path, manifest }) => ({
    id: relative(checkpointsDir, path).split(/[\\/]/)[0]!,
    manifest: 'checkpoints/' + relative(checkpointsDir, path).split(/[\\/]/).join('/'),
    name: manifest.name,
    tasks: manifest.tasks.map((t) => t.task),
    ...(manifest.recipe ? { recipe: manifest.recipe } : {}),
    ...(manifest.rl_gain ? { rl_gain: manifest.rl_gain } : {}),
  }));
  writeFileSync(join(checkpointsDir, 'index.json'), JSON.stringify(entries, null, 2) + '\n');
}
