/**
 * Compare's pure parts: B's `key=value` overrides checked as they are typed (every error at once,
 * each naming its field or line), and the one-line verdict on held-out pass@1 with its noise.
 * No store, no workers (compare-check.test.ts).
 */
import { applyAssignments, ConfigError, validateConfig } from '../../rl/config.ts';
import { getTaskFamily } from '../../tasks/registry.ts';

export interface OverrideCheck {
  /** The config patch for B (null when anything is wrong). */
  patch: Record<string, unknown> | null;
  /** Every problem, each starting with the field (or the line) it is about. */
  errors: string[];
}

/** Splits the overrides text into assignments (one per line or comma-separated). */
export function overrideLines(text: string): string[] {
  return text
    .split(/[\n,]+/)
    .map((l) => l.trim())
    .filter(Boolean);
}

function removePath(o: Record<string, unknown>, path: string): boolean {
  const [head, tail] = path.split('.', 2) as [string, string | undefined];
  if (tail !== undefined && o[head] && typeof o[head] === 'object') {
    const inner = { ...(o[head] as Record<string, unknown>) };
    if (!(tail in inner)) return false;
    delete inner[tail];
    o[head] = inner;
    return true;
  }
  if (!(head in o)) return false;
  delete o[head];
  return true;
}

/** Applies the overrides to B's base patch and validates the result, collecting every error. */
export function checkOverrides(base: Record<string, unknown>, text: string): OverrideCheck {
  const errors: string[] = [];
  const good: string[] = [];
  for (const line of overrideLines(text)) {
    try {
      applyAssignments({}, [line]);
      good.push(line);
    } catch (e) {
      errors.push(`"${line}": ${e instanceof ConfigError ? 'expected key=value' : (e as Error).message}`);
    }
  }
  const patch = applyAssignments(base, good);
  const probe = structuredClone(patch);
  for (let guard = 0; guard < 100; guard++) {
    try {
      const c = validateConfig(probe);
      const difficulty = (probe.difficulty as Record<string, number | string> | undefined) ?? {};
      if (Object.keys(difficulty).length) {
        const family = getTaskFamily(c.task);
        family.generate(0, { ...family.defaultDifficulty, ...difficulty });
      }
      break;
    } catch (e) {
      if (!(e instanceof ConfigError)) {
        const msg = (e as Error).message;
        const knob = /knob "([^"]+)"/.exec(msg)?.[1];
        errors.push(`${knob ? `difficulty.${knob}` : 'difficulty'}: ${msg.replace(/^[\w-]+: /, '')}`);
        break;
      }
      errors.push(e.message.startsWith(`${e.field}: `) ? e.message : `${e.field}: ${e.message}`);
      if (!removePath(probe, e.field)) break;
    }
  }
  return { patch: errors.length ? null : patch, errors };
}

export interface HeldOut {
  label: string;
  /** Held-out pass@1 (mean over prompts of the share of correct samples). */
  passAt1: number;
  prompts: number;
  /** Samples per prompt. */
  n: number;
  step: number;
}

/**
 * Binomial standard error of a pass@1 estimated from prompts × n samples (treats samples as independent, so it is a
 * lower bound).
 */
export function passAt1StdErr(h: HeldOut): number {
  const N = h.prompts * h.n;
  return N > 0 ? Math.sqrt((h.passAt1 * (1 - h.passAt1)) / N) : Infinity;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/**
 * "B did better on held-out pass@1: 0.62 vs 0.50 (+12.0 points), more than twice the noise (standard
 * error of the difference 4.1 points)", or that the difference is within the noise.
 */
export function passAt1Verdict(
  a: HeldOut,
  b: HeldOut,
): { text: string; significant: boolean; diff: number; se: number } {
  const diff = b.passAt1 - a.passAt1;
  const se = Math.hypot(passAt1StdErr(a), passAt1StdErr(b));
  const significant = Math.abs(diff) > 2 * se;
  const at = a.step === b.step ? `at step ${a.step}` : `at steps ${a.step} and ${b.step}`;
  const noise =
    `standard error of the difference ${(100 * se).toFixed(1)} ` +
    `points (binomial, ${a.prompts}×${a.n} and ${b.prompts}` +
    `×${b.n} samples)`;
  if (Math.abs(diff) < 1e-12)
    return {
      text: `A and B tie on held-out pass@1 ${at}: ${pct(a.passAt1)} each; ${noise}.`,
      significant: false,
      diff,
      se,
    };
  const [win, lose] = diff > 0 ? [b, a] : [a, b];
  const head =
    `${win.label} did better on held-out pass@1 ${at}: ` +
    `${pct(win.passAt1)} vs ${pct(lose.passAt1)} (+${(100 * Math.abs(diff)).toFixed(1)} ` +
    'points)';
  return {
    text: significant
      ? `${head}, more than twice the noise (${noise}).`
      : `${head}, but that is within the noise (${noise}): run more steps or more eval_prompts to tell them apart.`,
    significant,
    diff,
    se,
  };
}
