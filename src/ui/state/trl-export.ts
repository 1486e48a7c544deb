/**
 * "Export for TRL" (Keep & share): the TRL project `rlvr export --format trl` writes for the same run
 * config, as one zip, built in the page from the same code (src/export/trl/contents.ts, which needs
 * neither the file system nor the DOM); the Python sources come bundled as text. Loaded on demand.
 */
import type { RunConfig } from '../../rl/config.ts';
import { trlExportContents, trlFiles, TRL_EXPORT_PROMPTS } from '../../export/trl/contents.ts';
import { portedFamilies, setPythonSources } from '../../export/trl/python-text.ts';
import { zipStore } from '../../util/zip.ts';

type Load = () => Promise<string>;
const bundled = {
  ...import.meta.glob('../../export/trl/python/*.py', { query: '?raw', import: 'default' }),
  ...import.meta.glob('../../../python/rlvr_playground/*.py', { query: '?raw', import: 'default' }),
};

async function loadPythonSources(): Promise<void> {
  const byName = new Map<string, string>();
  // python/rlvr_playground/<module>.py is `rlvr_playground/<module>`; src/export/trl/python/<name>.py is `<name>`.
  const nameOf = (path: string) => path.replace(/^.*?(rlvr_playground\/)?([^/]+)\.py$/, '$1$2');
  const named = Object.entries(bundled as Record<string, Load>).map(([path, load]) => [nameOf(path), load] as const);
  await Promise.all(named.map(async ([name, load]) => byName.set(name, await load())));
  setPythonSources((name) => {
    const text = byName.get(name);
    if (text === undefined) throw new Error(`the TRL export has no python/${name}.py in this build`);
    return text;
  });
}

/** The README's shell commands, in order (what the page shows beside the download). */
export function readmeCommands(readme: string): string[] {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.map((b) =>
    b
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join('\n'),
  );
}

/** The TRL project of `config` as a zip (its files at the top, as the CLI writes them into --out), and its README. */
export async function trlExportZip(config: RunConfig): Promise<{ bytes: Uint8Array; readme: string; name: string }> {
  if (!(portedFamilies as readonly string[]).includes(config.task)) {
    const which = portedFamilies.join(', ');
    throw new Error(`the TRL export has reward functions for ${which}; not for task "${config.task}"`);
  }
  await loadPythonSources();
  const { contents } = trlExportContents(config, config.difficulty, TRL_EXPORT_PROMPTS);
  const enc = new TextEncoder();
  const bytes = zipStore(trlFiles.map((f) => ({ name: f, data: enc.encode(contents[f]) })));
  return { bytes, readme: contents['README.md'], name: `trl-${config.task}-seed${config.seed}.zip` };
}
