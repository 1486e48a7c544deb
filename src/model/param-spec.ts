import type { Tensor } from '../engine/graph.ts';

/** One weight of a model: its name, shape and how it is initialised (transformer.ts initParams). */
export interface ParamSpec {
  name: string;
  shape: number[];
  init: 'normal' | 'residual' | 'zeros' | 'ones';
}

/** The weights as graph inputs, by name. */
export type Params = Record<string, Tensor>;
