/**
 * What the page's Export for Hugging Face and Download checkpoint say about a run's weights, and the
 * Hugging Face folder itself: the playground's GPT-2 as hf-export.ts writes it, a Llama or Qwen2 as
 * hf-export-llama.ts does (the files `rlvr export --format hf` writes), LoRA adapters merged either way.
 */
import { loadWeights, type Manifest } from '../../model/checkpoint.ts';
import { isLlama } from '../../model/config.ts';
import { exportHuggingFace } from '../../model/hf-export.ts';
import { exportLlamaHuggingFace } from '../../model/hf-export-llama.ts';
import { zeroAdaptersWarning } from '../../model/lora.ts';
import { tokenizerFileNames } from './checkpoint-files.ts';

const pageWarning = (manifest: Manifest, weights: ReadonlyMap<string, Float32Array>) => {
  const warning = zeroAdaptersWarning(manifest.model, weights);
  return warning && `${manifest.name}: ${warning}. Train with a task and settings that earn some reward first.`;
};

/** The page's words for lora.ts zeroAdaptersWarning, or null when the adapters moved (or there are none). */
export const checkpointWarning = (manifest: Manifest, bytes: Uint8Array): string | null =>
  pageWarning(manifest, loadWeights(manifest, bytes));

/**
 * The Hugging Face folder of a saved checkpoint (its weights' bytes), with checkpointWarning's message.
 * `tokenizerFiles`: a Llama's tokenizer files, by the names its manifest gives them.
 */
export function huggingFaceFolder(
  manifest: Manifest,
  bytes: Uint8Array,
  tokenizerFiles: Record<string, Uint8Array>,
): { files: Map<string, Uint8Array>; warning: string | null } {
  const weights = loadWeights(manifest, bytes);
  const warning = pageWarning(manifest, weights);
  if (!isLlama(manifest.model)) return { files: exportHuggingFace(manifest, weights), warning };
  const spec = manifest.tokenizer;
  for (const name of spec.kind === 'hf' ? tokenizerFileNames(spec) : [])
    if (!tokenizerFiles[name])
      throw new Error(
        `the tokenizer's file ${name} of this run's model is not in this page any more (another model was ` +
          'imported since, or the page was reloaded): import the model again, then Reset and Start',
      );
  const text = new TextDecoder();
  const texts = Object.fromEntries(Object.entries(tokenizerFiles).map(([k, v]) => [k, text.decode(v)]));
  return { files: exportLlamaHuggingFace(manifest, weights, texts).files, warning };
}
