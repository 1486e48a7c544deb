/**
 * Knob validation and instance-file checking shared by the families, so every family rejects bad
 * input with the same kind of message (naming the knob or the field).
 */
import { Rng } from '../util/rng.ts';
import type { Difficulty, KnobSpec, TaskInstance } from './types.ts';

export function defaultsOf(knobs: KnobSpec[]): Difficulty {
  const d: Difficulty = {};
  for (const k of knobs) d[k.name] = k.default;
  return d;
}

/** Merges `partial` over the defaults and checks every knob; throws naming the offending knob. */
export function resolveDifficulty(
  task: string,
  knobs: KnobSpec[],
  partial: Partial<Difficulty> | undefined,
): Difficulty {
  if (partial !== undefined && (partial === null || typeof partial !== 'object' || Array.isArray(partial))) {
    throw new Error(`${task}: difficulty must be an object of knobs`);
  }
  const names = knobs.map((k) => k.name);
  for (const key of Object.keys(partial ?? {})) {
    if (!names.includes(key)) throw new Error(`${task}: unknown knob "${key}" (knobs: ${names.join(', ')})`);
  }
  const out: Difficulty = {};
  for (const k of knobs) {
    const v = partial?.[k.name] ?? k.default;
    if (typeof k.default === 'number') {
      if (typeof v !== 'number' || !Number.isFinite(v))
        throw new Error(`${task}: knob "${k.name}" must be a number, got ${JSON.stringify(v)}`);
      if (k.integer !== false && !Number.isInteger(v))
        throw new Error(`${task}: knob "${k.name}" must be an integer, got ${v}`);
      if (k.min !== undefined && v < k.min) throw new Error(`${task}: knob "${k.name}" must be >= ${k.min}, got ${v}`);
      if (k.max !== undefined && v > k.max) throw new Error(`${task}: knob "${k.name}" must be <= ${k.max}, got ${v}`);
    } else {
      if (typeof v !== 'string')
        throw new Error(`${task}: knob "${k.name}" must be a string, got ${JSON.stringify(v)}`);
      if (k.choices && !k.choices.includes(v))
        throw new Error(`${task}: knob "${k.name}" must be one of ${k.choices.join(', ')}; got "${v}"`);
    }
    out[k.name] = v;
  }
  return out;
}

export function checkSeed(task: string, seed: number): void {
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed))
    throw new Error(`${task}: seed must be an integer, got ${String(seed)}`);
}

/** The one place a family's random stream comes from: same (task, seed) gives the same stream everywhere. */
export function rngFor(task: string, seed: number): Rng {
  return Rng.derive(seed, 'task', task);
}

export function num(d: Difficulty, name: string): number {
  const v = d[name];
  if (typeof v !== 'number') throw new Error(`knob "${name}" is not a number`);
  return v;
}

export function str(d: Difficulty, name: string): string {
  const v = d[name];
  if (typeof v !== 'string') throw new Error(`knob "${name}" is not a string`);
  return v;
}

// ---- instance-file checks -------------------------------------------------------------------

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isIntArray(v: unknown, lo = -Infinity, hi = Infinity): v is number[] {
  return Array.isArray(v) && v.every((x) => Number.isSafeInteger(x) && x >= lo && x <= hi);
}

/**
 * Checks the fields every instance has, then the family's `data` via `checkData` (which returns
 * an error message or null). Throws an Error naming what is wrong.
 */
export function parseInstanceWith(
  task: string,
  value: unknown,
  checkData: (data: unknown, inst: TaskInstance) => string | null,
): TaskInstance {
  if (!isRecord(value)) throw new Error('instance must be a JSON object');
  if (value.task !== task) throw new Error(`instance is for task ${JSON.stringify(value.task)}, not "${task}"`);
  if (!Number.isSafeInteger(value.seed)) throw new Error('instance.seed must be an integer');
  if (!isRecord(value.difficulty)) throw new Error('instance.difficulty must be an object');
  for (const [k, v] of Object.entries(value.difficulty)) {
    if (typeof v !== 'number' && typeof v !== 'string')
      throw new Error(`instance.difficulty.${k} must be a number or string`);
  }
  for (const f of ['prompt', 'reference', 'answer'] as const) {
    if (typeof value[f] !== 'string') throw new Error(`instance.${f} must be a string`);
  }
  if (!('data' in value)) throw new Error('instance.data is missing');
  const inst = value as unknown as TaskInstance;
  const err = checkData(value.data, inst);
  if (err) throw new Error(`instance.data: ${err}`);
  return inst;
}
