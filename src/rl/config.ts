/**
 * The run config: its type, defaults and validation, all derived from the one table of fields in
 * config-fields.ts (names, types, ranges, help, restart flags).
 */
import type { SamplingParams } from '../model/sampling.ts';
import { configFields, crossFieldRules, fieldTable, type FieldDecl, type RunConfig } from './config-fields.ts';

export { configFields, fieldTable, type FieldDecl, type FieldGroup, type RunConfig } from './config-fields.ts';

export type LossType = RunConfig['loss_type'];
export type ScaleRewards = RunConfig['scale_rewards'];
export type AdvantageEstimator = RunConfig['advantage_estimator'];

export const defaultConfig: RunConfig = Object.fromEntries(
  configFields.map((k) => [k, structuredClone(fieldTable[k].default)]),
) as unknown as RunConfig;

export class ConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

export function checkField(field: string, d: FieldDecl, v: unknown): void {
  const bad = (msg: string) => {
    throw new ConfigError(field, msg);
  };
  switch (d.kind) {
    case 'int':
    case 'num': {
      if (typeof v !== 'number' || !Number.isFinite(v)) bad(`must be a number, got ${JSON.stringify(v)}`);
      const n = v as number;
      if (d.kind === 'int' && !Number.isInteger(n)) bad(`must be an integer, got ${n}`);
      if (d.exclusiveMin ? n <= d.min : n < d.min) bad(`must be ${d.exclusiveMin ? '>' : '>='} ${d.min}, got ${n}`);
      if (n > d.max) bad(`must be <= ${d.max}, got ${n}`);
      return;
    }
    case 'nullable-num':
      if (v === null) return;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < d.min)
        bad(`must be null or a number >= ${d.min}, got ${JSON.stringify(v)}`);
      return;
    case 'enum':
      if (typeof v !== 'string' || !d.values.includes(v))
        bad(`must be one of ${d.values.join(' | ')}, got ${JSON.stringify(v)}`);
      return;
    case 'bool':
      if (typeof v !== 'boolean') bad(`must be true or false, got ${JSON.stringify(v)}`);
      return;
    case 'str':
      if (typeof v !== 'string' || v.length === 0) bad(`must be a non-empty string, got ${JSON.stringify(v)}`);
      return;
    case 'record': {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) bad(`must be an object, got ${JSON.stringify(v)}`);
      for (const [k, x] of Object.entries(v as object))
        if (typeof x !== 'number' && typeof x !== 'string')
          throw new ConfigError(`${field}.${k}`, `must be a number or a string, got ${JSON.stringify(x)}`);
      return;
    }
    case 'weights': {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) bad(`must be an object, got ${JSON.stringify(v)}`);
      const known = Object.keys(d.parts);
      for (const k of Object.keys(v as object))
        if (!known.includes(k)) throw new ConfigError(`${field}.${k}`, `unknown field (known: ${known.join(', ')})`);
      for (const k of known)
        checkField(
          `${field}.${k}`,
          { kind: 'num', default: 0, min: d.min, max: d.max, group: d.group, help: '' },
          (v as Record<string, unknown>)[k],
        );
      return;
    }
  }
}

/**
 * Validates a (partial) config over the defaults. Unknown fields and bad values are errors naming the
 * field; nothing is silently ignored.
 */
export function validateConfig(input: unknown, base: RunConfig = defaultConfig): RunConfig {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new ConfigError('config', 'must be a JSON object');
  for (const k of Object.keys(input)) {
    if (!Object.hasOwn(fieldTable, k))
      throw new ConfigError(k, `unknown field (known fields: ${configFields.join(', ')})`);
  }
  const c = structuredClone({ ...base, ...(input as Partial<RunConfig>) }) as RunConfig;
  // A partial nested object (reward_weights: { format: 0.2 }) fills in from the defaults.
  for (const k of configFields) {
    const d: FieldDecl = fieldTable[k];
    if (d.kind === 'weights' && typeof c[k] === 'object' && c[k] !== null && !Array.isArray(c[k]))
      (c as Record<string, unknown>)[k] = { ...d.default, ...(c[k] as object) };
  }
  for (const k of configFields) checkField(k, fieldTable[k], c[k]);
  for (const r of crossFieldRules) {
    const msg = r.check(c);
    if (msg) throw new ConfigError(r.field, msg);
  }
  return c;
}

/** Parses `key=value` (value as JSON when it parses, else a string) into a config patch. */
export function parseAssignment(s: string): [string, unknown] {
  const eq = s.indexOf('=');
  if (eq <= 0) throw new ConfigError(s, 'expected key=value');
  const key = s.slice(0, eq);
  const raw = s.slice(eq + 1);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = raw;
  }
  return [key, value];
}

/** Applies dotted assignments (e.g. reward_weights.format=0.2, difficulty.digits=3) to a plain object. */
export function applyAssignments(patch: Record<string, unknown>, assignments: string[]): Record<string, unknown> {
  const out = structuredClone(patch);
  for (const a of assignments) {
    const [key, value] = parseAssignment(a);
    const parts = key.split('.');
    let obj = out;
    for (const p of parts.slice(0, -1)) {
      if (typeof obj[p] !== 'object' || obj[p] === null)
        obj[p] = { ...((defaultConfig as unknown as Record<string, object>)[p] ?? {}) };
      obj = obj[p] as Record<string, unknown>;
    }
    obj[parts[parts.length - 1]!] = value;
  }
  return out;
}

/** Fields that change the shapes of compiled graphs or the data stream: changing them needs a restart. */
export const restartFields: (keyof RunConfig)[] = configFields.filter(
  (k) => (fieldTable[k] as FieldDecl).restart === true,
);

/** Samples per held-out prompt in a run's evaluations: eval_samples, or num_generations when it is 0. */
export const heldOutSamples = (c: Pick<RunConfig, 'eval_samples' | 'num_generations'>): number =>
  c.eval_samples > 0 ? c.eval_samples : c.num_generations;

/** The sampler's parameters from a config (training, evaluation and the pass@k explorer draw alike). */
export const samplingParams = (
  c: Pick<RunConfig, 'temperature' | 'top_k' | 'top_p' | 'min_p' | 'repetition_penalty'>,
): SamplingParams => ({
  temperature: c.temperature,
  topK: c.top_k,
  topP: c.top_p,
  minP: c.min_p,
  repetitionPenalty: c.repetition_penalty,
});
