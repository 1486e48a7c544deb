/**
 * The hand-written batch the objective tests share (src/rl/objective.test.ts and
 * objective-forms.test.ts): 2 groups x 2 completions, up to 3 tokens each (row 3 has 2 tokens),
 * with the clip range, KL coefficient and length cap the hand computations use.
 */
export const ROWS = 4;
export const LEN = 3;
export const mask = [
  [1, 1, 1],
  [1, 1, 0],
  [1, 1, 1],
  [1, 0, 0],
];
export const rewards = [
  [1, 0.1],
  [0, 1],
];
export const correct = [
  [true, false],
  [false, true],
];
export const oldLogp = [
  [-0.5, -1.2, -0.3],
  [-2.0, -0.7, 0],
  [-1.0, -0.4, -0.9],
  [-0.2, 0, 0],
];
// Current log-probs chosen so some ratios leave [0.8, 1.28] on both sides.
export const logp = [
  [-0.2, -1.25, -0.3],
  [-2.5, -0.6, 0],
  [-1.0, -0.1, -1.3],
  [-0.05, 0, 0],
];
export const refLogp = [
  [-0.6, -1.0, -0.2],
  [-1.8, -0.9, 0],
  [-1.1, -0.5, -0.7],
  [-0.3, 0, 0],
];
export const EPS = 0.2;
export const EPS_HIGH = 0.28;
export const BETA = 0.05;
export const MAXLEN = 5;
