/**
 * How the page names an uploaded or imported checkpoint (Base checkpoint, Keep & share): its
 * architecture, parameter count, and whether training can use it yet.
 */
import { requireCharTokenizer, type Manifest } from '../model/checkpoint.ts';

/** The Hugging Face class the checkpoint corresponds to (the playground's own GPT-2 for ours). */
export function architectureOf(m: Manifest): string {
  if (m.model.arch === 'llama') return m.model.qkvBias ? 'Qwen2ForCausalLM' : 'LlamaForCausalLM';
  return 'GPT-2';
}

/** "37,432 parameters" (the manifest's count). */
export const parametersText = (m: Manifest) => `${m.parameters.toLocaleString('en-US')} parameters`;

/** One line: "llama-hf-import: LlamaForCausalLM, 37,432 parameters". */
export const modelSummary = (name: string, m: Manifest) => `${name}: ${architectureOf(m)}, ${parametersText(m)}`;

/**
 * Why training cannot start from this checkpoint yet (the trainer's own refusal, word for word), or
 * null where it can: a checkpoint with its own tokenizer (an imported Llama or Qwen2 folder).
 */
export function trainingRefusal(m: Manifest): string | null {
  try {
    requireCharTokenizer(m, 'training');
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
