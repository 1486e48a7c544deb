/**
 * The setup form's model: every RunConfig field with its one-line help and paper, how its text is
 * parsed, and validation that collects every error (not just the first) keyed by field path.
 * Pure TypeScript (unit-tested in config-form.test.ts).
 */
import { ConfigError, defaultConfig, validateConfig, type RunConfig } from '../rl/config.ts';
import { getPreset } from '../rl/presets.ts';
import { getTaskFamily, taskFamilies } from '../tasks/registry.ts';
import type { TaskFamily } from '../tasks/types.ts';

export type FieldKind = 'int' | 'num' | 'nullable-num' | 'enum' | 'bool';

export interface FieldSpec {
  /** Path: a RunConfig key, or `reward_weights.<k>`. */
  path: string;
  kind: FieldKind;
  group: 'Sampling' | 'Optimisation' | 'Objective' | 'Data and reward' | 'Curriculum' | 'Evaluation and bookkeeping' | 'Run';
  help: string;
  paper?: string;
  options?: readonly string[];
  /** TRL's GRPOConfig has a field of this name and meaning. */
  trl?: boolean;
}

const F = (path: string, kind: FieldKind, group: FieldSpec['group'], help: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({ path, kind, group, help, ...extra });

export const fieldSpecs: FieldSpec[] = [
  F('seed', 'int', 'Run', 'seeds prompts, sampling and noise: same seed + config + backend gives the same run'),
  F('prompts_per_step', 'int', 'Sampling', 'prompts sampled per step; each gets a group of num_generations completions'),
  F('num_generations', 'int', 'Sampling', 'group size G: completions per prompt, compared with each other for the advantage', { trl: true, paper: 'GRPO (DeepSeekMath)' }),
  F('temperature', 'num', 'Sampling', 'sampling temperature (also used when scoring log-probs)', { trl: true }),
  F('top_p', 'num', 'Sampling', 'nucleus sampling: keep the smallest set of tokens with this much probability', { trl: true }),
  F('top_k', 'int', 'Sampling', 'keep only the k most likely tokens (0 = off)', { trl: true }),
  F('max_completion_length', 'int', 'Sampling', 'cap on generated tokens; longer completions are truncated', { trl: true }),
  F('learning_rate', 'num', 'Optimisation', 'AdamW step size', { trl: true }),
  F('warmup_steps', 'int', 'Optimisation', 'linear learning-rate warm-up over the first N steps (a fresh Adam takes large, sign-like first steps)', { trl: true }),
  F('adam_beta1', 'num', 'Optimisation', 'AdamW first-moment decay', { trl: true }),
  F('adam_beta2', 'num', 'Optimisation', 'AdamW second-moment decay', { trl: true }),
  F('weight_decay', 'num', 'Optimisation', 'decoupled weight decay (AdamW)', { trl: true }),
  F('max_grad_norm', 'num', 'Optimisation', 'clip the global gradient norm to this (0 = no clipping)', { trl: true }),
  F('num_iterations', 'int', 'Optimisation', 'μ: optimisation passes over each sampled batch (PPO epochs); >1 makes the ratio and clipping matter', { trl: true, paper: 'PPO (Schulman et al., 2017)' }),
  F('minibatches', 'int', 'Optimisation', 'optimizer steps per pass: the batch is split this many ways (more = more off-policy)'),
  F('loss_type', 'enum', 'Objective', 'how token losses are aggregated: grpo per-sequence mean; bnpo minibatch token mean; dapo batch token mean; dr_grpo constant divisor', { trl: true, options: ['grpo', 'bnpo', 'dr_grpo', 'dapo'], paper: 'DAPO; Dr. GRPO (Liu et al., 2025)' }),
  F('scale_rewards', 'enum', 'Objective', 'divide advantages by the group std, the batch std, or not at all', { trl: true, options: ['group', 'batch', 'none'], paper: 'Dr. GRPO; Lite PPO (Liu et al., 2025)' }),
  F('advantage_estimator', 'enum', 'Objective', 'grpo: reward − group mean; rloo: leave-one-out mean; signed: +1 right / −1 wrong (PSR/NSR)', { options: ['grpo', 'rloo', 'signed'], paper: 'RLOO (Ahmadian et al., 2024); Zhu et al., 2025' }),
  F('epsilon', 'num', 'Objective', 'lower clip: the ratio is clipped at 1 − epsilon', { trl: true, paper: 'PPO (Schulman et al., 2017)' }),
  F('epsilon_high', 'num', 'Objective', 'upper clip 1 + epsilon_high; larger than epsilon = clip-higher (keeps entropy up)', { trl: true, paper: 'DAPO (Yu et al., 2025)' }),
  F('delta', 'nullable-num', 'Objective', 'cap on the unclipped ratio (two-sided clipping); empty = off', { trl: true, paper: 'INTELLECT-2 (Prime Intellect, 2025)' }),
  F('importance_sampling_level', 'enum', 'Objective', 'token: one ratio per token; sequence: one geometric-mean ratio per completion', { trl: true, options: ['token', 'sequence'], paper: 'GSPO (Zheng et al., 2025)' }),
  F('beta', 'num', 'Objective', 'KL penalty to the reference policy (0 = no reference, no KL)', { trl: true, paper: 'GRPO (DeepSeekMath)' }),
  F('kl_estimator', 'enum', 'Objective', 'k3 = exp(ref−logp) − (ref−logp) − 1 (unbiased, ≥ 0); k1 = logp − ref', { options: ['k1', 'k3'], paper: 'Schulman, "Approximating KL divergence" (2020)' }),
  F('ref_reset_every', 'int', 'Objective', 'reset the reference policy to the current one every N steps (0 = never)', { paper: 'ProRL (Liu et al., 2025)' }),
  F('entropy_coef', 'num', 'Objective', 'entropy bonus: subtracts coef × entropy from each token loss'),
  F('mask_truncated_completions', 'bool', 'Objective', 'exclude completions that hit the length cap from the loss', { trl: true, paper: 'DAPO (Yu et al., 2025)' }),
  F('top_entropy_quantile', 'num', 'Objective', 'train only on this top fraction of tokens by entropy (1 = all)', { trl: true, paper: 'Beyond the 80/20 Rule (Wang et al., 2025)' }),
  F('positive_weight', 'num', 'Objective', 'multiplier on positive advantages (PSR)', { paper: 'Zhu et al., 2025 (W-REINFORCE)' }),
  F('negative_weight', 'num', 'Objective', 'multiplier on negative advantages (NSR)', { paper: 'Zhu et al., 2025 (W-REINFORCE)' }),
  F('dynamic_sampling', 'bool', 'Data and reward', 'drop groups whose rewards are all equal and refill the batch', { paper: 'DAPO (Yu et al., 2025)' }),
  F('max_refill_rounds', 'int', 'Data and reward', 'extra sampling rounds allowed to refill a batch'),
  F('hints', 'bool', 'Data and reward', 'when a whole group fails, retry it with a prefix of the reference solution forced', { paper: 'Guide / SEELE hints' }),
  F('hint_fraction', 'num', 'Data and reward', 'fraction of the reference solution given as the hint'),
  F('reward_weights.correctness', 'num', 'Data and reward', 'weight of the correctness component (1 when the answer is right)', { trl: true }),
  F('reward_weights.format', 'num', 'Data and reward', 'weight of the format component (1 when <think>…</think><answer>…</answer> is followed)', { trl: true, paper: 'DeepSeek-R1; TinyZero' }),
  F('reward_weights.partial', 'num', 'Data and reward', 'weight of partial credit (cells right, clauses satisfied…)'),
  F('overlong_penalty', 'bool', 'Data and reward', 'soft penalty in a window before the length cap', { paper: 'DAPO (Yu et al., 2025)' }),
  F('overlong_cache_length', 'int', 'Data and reward', 'width of the overlong window, in tokens'),
  F('noise_p_fn', 'num', 'Data and reward', 'noisy verifier: probability a correct answer is judged wrong', { paper: 'Noisy verifiers (Cai et al., 2025)' }),
  F('noise_p_fp', 'num', 'Data and reward', 'noisy verifier: probability a wrong answer is judged right', { paper: 'Noisy verifiers (Cai et al., 2025)' }),
  F('leaky_verifier', 'bool', 'Data and reward', 'use the family’s deliberately lenient verifier (reward-hacking lesson)'),
  F('reward_source', 'enum', 'Data and reward', 'verifier, rlpr (the policy’s own probability of the reference answer), or a mix', { options: ['verifier', 'rlpr', 'mix'], paper: 'RLPR (Yu et al., 2025)' }),
  F('rlpr_weight', 'num', 'Data and reward', 'weight of the RLPR reward in the mix'),
  F('curriculum', 'enum', 'Curriculum', 'fixed difficulty, or an easy-to-hard ladder that advances on pass@1', { options: ['fixed', 'ladder'], paper: 'SATURN (Liu et al., 2025)' }),
  F('ladder_window', 'int', 'Curriculum', 'steps pooled before the ladder moves'),
  F('ladder_advance_at', 'num', 'Curriculum', 'move up a level when pooled pass@1 reaches this'),
  F('ladder_step_back_at', 'num', 'Curriculum', 'move down when pooled pass@1 falls below this'),
  F('eval_every', 'int', 'Evaluation and bookkeeping', 'held-out pass@k every N steps (0 = never)'),
  F('eval_prompts', 'int', 'Evaluation and bookkeeping', 'held-out prompts in each evaluation'),
  F('rollout_history_steps', 'int', 'Evaluation and bookkeeping', 'steps whose rollouts are kept in full for the inspector'),
];

export const fieldGroups = [...new Set(fieldSpecs.map((f) => f.group))];

export function fieldSpec(path: string): FieldSpec | undefined {
  return fieldSpecs.find((f) => f.path === path);
}

/** Task families a person can pick (the custom family needs a dataset file). */
export const pickableTasks: TaskFamily[] = taskFamilies.filter((f) => f.id !== 'custom');

/** What the person typed: text for number fields, booleans for checkboxes, option strings for selects. */
export type Edits = Record<string, string | boolean>;

/**
 * The app's own starting values where they differ from the library defaults (a fast first demo:
 * a held-out evaluation of 16 prompts every 10 steps). Presets and edits apply on top.
 */
export const appDefaults: Partial<RunConfig> = { eval_prompts: 16 };

/** The value a field has before the person's edits: defaults ← app defaults ← preset. */
export function baseValue(path: string, presetId: string): unknown {
  const preset = safePreset(presetId)?.config ?? {};
  const merged = { ...defaultConfig, ...appDefaults, ...preset } as unknown as Record<string, unknown>;
  if (path.startsWith('reward_weights.')) return (merged.reward_weights as Record<string, unknown>)[path.slice(15)];
  return merged[path];
}

export function safePreset(id: string) {
  try {
    return getPreset(id);
  } catch {
    return null;
  }
}

/** A value as the form shows it. */
export function toText(v: unknown): string | boolean {
  if (typeof v === 'boolean') return v;
  if (v === null || v === undefined) return '';
  return String(v);
}

/** Parses typed text: numbers become numbers; text that is not a number stays text (the validator names it). */
export function parseText(kind: FieldKind, raw: string | boolean): unknown {
  if (typeof raw === 'boolean') return raw;
  const t = raw.trim();
  if (kind === 'enum') return t;
  if (kind === 'bool') return t === 'true';
  if (kind === 'nullable-num' && (t === '' || t === 'null' || t === 'off')) return null;
  if (t === '') return '';
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/** Knob text: numbers for numeric knobs, strings otherwise. */
export function parseKnob(family: TaskFamily, name: string, raw: string): number | string {
  const spec = family.knobs.find((k) => k.name === name);
  if (spec && typeof spec.default === 'number') {
    const n = Number(raw.trim());
    return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
  }
  return raw;
}

export interface SetupDraft {
  task: string;
  presetId: string;
  edits: Edits;
  /** Knob edits (text), over the checkpoint's measured difficulty. */
  knobs: Record<string, string>;
}

/** The config patch the form describes: preset ← parsed edits ← task and difficulty overrides. */
export function draftPatch(d: SetupDraft): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...appDefaults, ...(safePreset(d.presetId)?.config ?? {}) };
  for (const [path, raw] of Object.entries(d.edits)) {
    const spec = fieldSpec(path);
    if (!spec) {
      patch[path] = raw; // unknown: the validator reports it by name
      continue;
    }
    const v = parseText(spec.kind, raw);
    if (path.startsWith('reward_weights.')) {
      patch.reward_weights = { ...defaultConfig.reward_weights, ...((patch.reward_weights as object) ?? {}), [path.slice(15)]: v };
    } else patch[path] = v;
  }
  if (d.task !== defaultConfig.task) patch.task = d.task;
  const family = safeFamily(d.task);
  const diff: Record<string, number | string> = {};
  for (const [k, raw] of Object.entries(d.knobs)) diff[k] = family ? parseKnob(family, k, raw) : raw;
  if (Object.keys(diff).length) patch.difficulty = diff;
  return patch;
}

export function safeFamily(id: string): TaskFamily | null {
  try {
    return getTaskFamily(id);
  } catch {
    return null;
  }
}

function removePath(patch: Record<string, unknown>, path: string): boolean {
  const [head, tail] = path.split('.', 2) as [string, string | undefined];
  if (tail !== undefined && typeof patch[head] === 'object' && patch[head] !== null) {
    const inner = { ...(patch[head] as Record<string, unknown>) };
    if (!(tail in inner)) return false;
    delete inner[tail];
    patch[head] = inner;
    return true;
  }
  if (!(head in patch)) return false;
  delete patch[head];
  return true;
}

/**
 * Every error in the draft, keyed by field path (`difficulty.<knob>` for knobs). `measured` is the
 * difficulty the checkpoint was measured at (the knobs' starting values).
 */
export function validateDraft(d: SetupDraft, measured: Record<string, number | string> = {}): { config: RunConfig | null; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const patch = draftPatch(d);
  let config: RunConfig | null = null;
  for (let guard = 0; guard < 100; guard++) {
    try {
      config = validateConfig(patch);
      break;
    } catch (e) {
      if (!(e instanceof ConfigError)) {
        errors.config = (e as Error).message;
        break;
      }
      errors[e.field] = e.message.startsWith(`${e.field}: `) ? e.message.slice(e.field.length + 2) : e.message;
      // Cross-field rules name a field that may be valid on its own; drop it and look for more.
      // A cross-field rule may name a field the person did not set (epsilon_high < epsilon): stop there.
      if (!removePath(patch, e.field)) break;
    }
  }
  const family = safeFamily(d.task);
  if (!family) errors.task = `unknown task "${d.task}"`;
  else {
    const knobs: Record<string, number | string> = {};
    for (const [k, raw] of Object.entries(d.knobs)) knobs[k] = parseKnob(family, k, raw);
    const relevant = Object.fromEntries(Object.entries(measured).filter(([k]) => family.knobs.some((s) => s.name === k)));
    const difficulty = { ...family.defaultDifficulty, ...relevant, ...knobs };
    for (let guard = 0; guard < 20; guard++) {
      try {
        family.generate(0, difficulty);
        break;
      } catch (e) {
        const msg = (e as Error).message;
        const knob = /knob "([^"]+)"/.exec(msg)?.[1];
        if (!knob || !(knob in difficulty)) {
          errors.difficulty = msg;
          break;
        }
        errors[`difficulty.${knob}`] = msg.replace(/^[\w-]+: /, '');
        difficulty[knob] = family.defaultDifficulty[knob]!;
      }
    }
  }
  if (Object.keys(errors).length) config = null;
  return { config, errors };
}
