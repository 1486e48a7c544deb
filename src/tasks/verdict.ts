/**
 * Shared verdict plumbing: every family's verify goes through `judge`, which handles the format
 * component, the missing-answer case and the never-throw guarantee, so family code only checks
 * an answer string.
 */
import { DEFAULT_FORMAT, parseCompletion, type ParsedCompletion } from './format.ts';
import type { Verdict, VerifyOptions } from './types.ts';

/** What a family's answer check returns. */
export interface AnswerCheck {
  correct: boolean;
  reason: string;
  partial?: number;
}

/** Answers longer than this are rejected before any family parsing. */
export const MAX_ANSWER_CHARS = 200;

export function judge(
  completion: string,
  opts: VerifyOptions | undefined,
  check: (answer: string, parsed: ParsedCompletion) => AnswerCheck,
): Verdict {
  try {
    const parsed = parseCompletion(completion, opts?.format ?? DEFAULT_FORMAT);
    const format = parsed.wellFormed ? 1 : 0;
    if (parsed.answer === null) {
      return { correct: false, components: { correctness: 0, format }, reason: parsed.reason };
    }
    if (parsed.answer.length > MAX_ANSWER_CHARS) {
      return {
        correct: false,
        components: { correctness: 0, format, partial: 0 },
        reason: withFormat(`answer too long (${parsed.answer.length} chars > ${MAX_ANSWER_CHARS})`, parsed),
      };
    }
    const r = check(parsed.answer, parsed);
    const components = {
      correctness: r.correct ? 1 : 0,
      format,
      ...(r.partial === undefined ? {} : { partial: clamp01(r.partial) }),
    };
    return { correct: r.correct, components, reason: withFormat(r.reason, parsed) };
  } catch (err) {
    // A verifier bug must cost the rollout its reward, not crash the training run.
    return {
      correct: false,
      components: { correctness: 0, format: 0 },
      reason: `verifier error: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

function withFormat(reason: string, parsed: ParsedCompletion): string {
  return parsed.wellFormed ? reason : `${reason}; format: ${parsed.reason}`;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

export function ok(reason = 'correct', partial?: number): AnswerCheck {
  return partial === undefined ? { correct: true, reason } : { correct: true, reason, partial };
}

export function wrong(reason: string, partial?: number): AnswerCheck {
  return partial === undefined ? { correct: false, reason } : { correct: false, reason, partial };
}
