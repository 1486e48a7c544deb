/**
 * Every finding rule, one line each: a new kind is its own file (a FindingRule, src/runs/findings/types.ts)
 * and its line here, plus its name in `findingKinds` (docs/architecture.md, "Adding a finding").
 */
import { entropyCollapse } from './entropy-collapse.ts';
import { lengthBlowup } from './length-blowup.ts';
import { logprobMismatch } from './logprob-mismatch.ts';
import { nonfinite } from './nonfinite.ts';
import { repetition } from './repetition.ts';
import { rewardHacking } from './reward-hacking.ts';
import { truncation } from './truncation.ts';
import type { FindingRule } from './types.ts';
import { zeroVarianceGroup } from './zero-variance-group.ts';

export const findingRules: readonly FindingRule<unknown>[] = [
  zeroVarianceGroup,
  rewardHacking,
  truncation,
  repetition,
  lengthBlowup,
  logprobMismatch,
  entropyCollapse,
  nonfinite,
];
