/**
 * Size caps on files a person imports (docs/reliability.md): every import is parsed as data, never executed, and
 * refused with a clear message before it is read when it is larger than any legitimate file.
 */
import { parseDatasetStream, type Dataset, type DatasetOptions } from '../../tasks/dataset.ts';

const MB = 1024 * 1024;

/** Largest accepted size per kind of import, in bytes. */
export const IMPORT_LIMITS = {
  /**
   * A weights file (or a zipped Hugging Face folder): a released small model's file fits (SmolLM2-135M: 538 MB in
   * float32, 269 MB in bf16; Qwen2.5-0.5B: 988 MB in bf16). The page imports and scores the SmolLM2-135M shape
   * (e2e/hf-import-smollm2.spec.mjs); the presets are at most ~19 MB.
   */
  checkpoint: 1024 * MB,
  /** A checkpoint's manifest.json is a few KB. */
  manifest: 1 * MB,
  /** A run config (JSON) is ~2 KB with every field set. */
  config: 256 * 1024,
  /** A JSONL dataset is streamed (bounded memory), but 100 MB is far beyond any useful set of prompts here. */
  dataset: 100 * MB,
} as const;

export type ImportKind = keyof typeof IMPORT_LIMITS;

const WHAT: Record<ImportKind, string> = {
  checkpoint: 'checkpoint weights',
  manifest: 'checkpoint manifest',
  config: 'config file',
  dataset: 'dataset',
};

export class ImportTooLarge extends Error {}

export function formatBytes(n: number): string {
  if (n >= MB) return `${(n / MB).toFixed(n >= 10 * MB ? 0 : 1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${n} bytes`;
}

/** Throws ImportTooLarge (naming the file, its size and the cap) when `size` is over the cap for `kind`. */
export function checkImportSize(kind: ImportKind, name: string, size: number): void {
  const cap = IMPORT_LIMITS[kind];
  if (size > cap)
    throw new ImportTooLarge(
      `${name} is ${formatBytes(size)}; a ${WHAT[kind]} may be at most ${formatBytes(cap)}, so it was not read`,
    );
}

/** Reads a JSONL dataset file as a stream of text chunks (never whole), after the size check. */
export async function readDatasetFile(file: Blob & { name?: string }, opts: DatasetOptions = {}): Promise<Dataset> {
  checkImportSize('dataset', file.name ?? 'the dataset', file.size);
  const reader = file.stream().pipeThrough(new TextDecoderStream()).getReader();
  async function* chunks(): AsyncGenerator<string> {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  return parseDatasetStream(chunks(), opts);
}
