/** Public surface of the tasks layer: generators, verifiers, reward shaping and curricula. */
export type * from './types.ts';
export { taskFamilies, taskIds, getTaskFamily } from './registry.ts';
export {
  DEFAULT_FORMAT,
  MAX_COMPLETION_CHARS,
  SPECIAL_TAGS,
  parseCompletion,
  formatCompletion,
  countTokens,
  isTokenizable,
  type FormatSpec,
  type ParsedCompletion,
} from './format.ts';
export {
  shapeReward,
  overlongPenalty,
  targetLengthTerm,
  maxReward,
  DEFAULT_REWARD_CONFIG,
  type RewardConfig,
  type RewardWeights,
  type OverlongConfig,
  type TargetLengthConfig,
  type ShapeRewardInput,
  type ShapedReward,
} from './reward.ts';
export { NoisyVerifier, makeNoisyVerifier, applyNoise, type NoiseConfig, type NoisyVerdict } from './noisy.ts';
export {
  parseDataset,
  parseDatasetStream,
  parseDatasetLine,
  checkCustomAnswer,
  parseNumber,
  DatasetError,
  VERIFIER_KINDS,
  type Dataset,
  type DatasetRecord,
  type DatasetLineError,
  type DatasetOptions,
  type VerifierKind,
  type CustomVerifierSpec,
} from './dataset.ts';
export { makeCustomFamily, customFamily } from './families/custom.ts';
export {
  FixedDifficulty,
  DifficultyLadder,
  DEFAULT_LADDER_OPTIONS,
  filterGroups,
  groupAccuracy,
  hintFor,
  nextHintFraction,
  type Curriculum,
  type LadderOptions,
  type LadderState,
  type LadderTransition,
  type FilterResult,
  type Hint,
} from './curriculum.ts';
export { satDifficultyEstimate } from './families/sat.ts';
