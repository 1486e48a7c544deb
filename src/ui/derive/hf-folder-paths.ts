/**
 * Which files of a folder chosen for Import Hugging Face (folder) the import reads. The browser gives
 * each file its path under the chosen folder's own name (`checkpoint-20/config.json` when the person
 * chose TRL's checkpoint-20/). A TRL output folder also holds its intermediate `checkpoint-N/`
 * folders: those are skipped below the chosen folder, never the chosen folder itself.
 */

/**
 * Only what the import reads: the weights, the JSON files and a chat template (chat_template.jinja,
 * which a Llama or Qwen2 folder may hold); a folder may also hold onnx/, logs, ...
 */
const READ = /(^|\/)[^/]+\.(json|safetensors|jinja)$/;
const CHECKPOINT_DIR = /(^|\/)checkpoint-\d+\//;

/** The chosen folder's name: the first segment every path shares ('' for loose files). */
function pickedRoot(paths: readonly string[]): string {
  const first = paths[0]?.split('/')[0] ?? '';
  return first && paths.every((p) => p.startsWith(first + '/')) ? first + '/' : '';
}

/** The paths the import reads, nested checkpoint-N/ folders below the chosen folder left out. */
export function hfImportPaths(paths: readonly string[]): string[] {
  const root = pickedRoot(paths);
  return paths.filter((p) => READ.test(p) && !CHECKPOINT_DIR.test(p.slice(root.length)));
}

/**
 * The checkpoint-N/ folders directly inside the chosen folder, highest step first (named when it has no config.json).
 */
export function nestedCheckpoints(paths: readonly string[]): string[] {
  const root = pickedRoot(paths);
  const names = new Set<string>();
  for (const p of paths) {
    const m = /^(checkpoint-(\d+))\//.exec(p.slice(root.length));
    if (m) names.add(m[1]!);
  }
  return [...names].sort((a, b) => Number(b.split('-')[1]) - Number(a.split('-')[1]));
}
