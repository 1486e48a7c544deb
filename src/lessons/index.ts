/**
 * Every lesson, in the gallery's order: one file a lesson (its text, runs, seeds and rule), listed here.
 * Adding one: docs/architecture.md, "a lesson".
 */
import type { Lesson } from './lesson.ts';
import { whyGroups } from './why-groups.ts';
import { lengthNormalisation } from './length-normalisation.ts';
import { clipHigher } from './clip-higher.ts';
import { tokenVsSequence } from './token-vs-sequence.ts';
import { sharpening } from './sharpening.ts';
import { noisyVerifiers } from './noisy-verifiers.ts';
import { rewardHacking } from './reward-hacking.ts';
import { easyToHard } from './easy-to-hard.ts';
import { zeroLoss } from './zero-loss.ts';
import { noSignal } from './no-signal.ts';
import { forkingTokens } from './forking-tokens.ts';
import { cispoVsClip } from './cispo-vs-clip.ts';

export const lessons: Lesson[] = [
  whyGroups,
  lengthNormalisation,
  clipHigher,
  tokenVsSequence,
  sharpening,
  noisyVerifiers,
  rewardHacking,
  easyToHard,
  zeroLoss,
  noSignal,
  forkingTokens,
  cispoVsClip,
];

export function getLesson(id: string): Lesson {
  const l = lessons.find((x) => x.id === id);
  if (!l) throw new Error(`unknown lesson "${id}" (known: ${lessons.map((x) => x.id).join(', ')})`);
  return l;
}

export * from './lesson.ts';
