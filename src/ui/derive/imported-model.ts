/**
 * How the page names an uploaded or imported checkpoint (Base checkpoint, Keep & share): its
 * architecture and parameter count.
 */
import type { Manifest } from '../../model/checkpoint.ts';

/** The Hugging Face class the checkpoint corresponds to (the playground's own GPT-2 for ours). */
export function architectureOf(m: Manifest): string {
  if (m.model.arch === 'llama') return m.model.qkvBias ? 'Qwen2ForCausalLM' : 'LlamaForCausalLM';
  return 'GPT-2';
}

/** "37,432 parameters" (the manifest's count). */
export const parametersText = (m: Manifest) => `${m.parameters.toLocaleString('en-US')} parameters`;

/** One line: "llama-hf-import: LlamaForCausalLM, 37,432 parameters". */
export const modelSummary = (name: string, m: Manifest) => `${name}: ${architectureOf(m)}, ${parametersText(m)}`;
