import type { Tensor } from '../engine/graph.ts';

/** One weight of a model: its name, shape and how it is initialised (transformer.ts initParams). */
export interface ParamSpec {
  name: string;
  shape: number[];
  init: 'normal' | 'residual' | 'zeros' | 'ones' | 'kaiming';
  /** A base weight under LoRA (lora.ts): fed to every graph, never differentiated or updated. */
  frozen?: boolean;
  /**
   * Whether AdamW's weight decay applies: to the embeddings and weight matrices, not to biases or
   * norm gains and shifts, as transformers' Trainer.get_decay_parameter_names chooses (it leaves out
   * norm modules and names containing "bias"), so a run here and its TRL export
   * (src/export/trl) decay the same parameters.
   */
  decay: boolean;
}

/** The weights as graph inputs, by name. */
export type Params = Record<string, Tensor>;
