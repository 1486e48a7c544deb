/**
 * Sorting / ranking: order a list by a stated key. Prompt "asc: 5 2 9 1" (keys: asc, desc, len,
 * abc), answer "1 2 5 9". Any order among items with equal keys is accepted. With the
 * `sortMetric: 'kendall'` option, partial credit is the normalised Kendall tau agreement
 * (1 - discordant pairs / all pairs) between the answer and a correct order.
 */
import { formatCompletion } from '../format.ts';
import { checkSeed, defaultsOf, isRecord, num, parseInstanceWith, resolveDifficulty, rngFor, str } from '../knobs.ts';
import type { Difficulty, KnobSpec, TaskFamily, TaskInstance, VerifyOptions } from '../types.ts';
import { judge, ok, wrong, type AnswerCheck } from '../verdict.ts';

const ID = 'sort';

export type SortKey = 'asc' | 'desc' | 'len' | 'abc';
const KEYS: SortKey[] = ['asc', 'desc', 'len', 'abc'];

const knobs: KnobSpec[] = [
  { name: 'length', description: 'items in the list', default: 5, min: 2, max: 12 },
  {
    name: 'key',
    description: 'asc/desc: numbers; len: words by length; abc: words alphabetically; mixed: any of these',
    default: 'asc',
    choices: [...KEYS, 'mixed'],
  },
  { name: 'maxValue', description: 'numbers are drawn from 0..maxValue', default: 99, min: 9, max: 9999 },
];

// Short, distinct lowercase words so prompts stay compact.
const WORDS = (
  'a an ox go up at be it we on no ' +
  'cat dog sun red box cup egg fox hat ink jam key map net owl pen rat sky toy van web yak zip ' +
  'bird cake door fish gold hill iron kite lamp moon nest open pear rain ship tree wolf ' +
  'apple bread chair dance eagle flame grape house juice lemon mango ' +
  'banana candle dragon forest garden island jacket ' +
  'blanket cabbage diamond monster'
).split(' ');

export interface SortData {
  key: SortKey;
  items: string[];
  /** One correct order. */
  sorted: string[];
}

/** Negative when a should come first. Equal keys compare 0: either order is correct. */
function compareBy(key: SortKey): (a: string, b: string) => number {
  switch (key) {
    case 'asc':
      return (a, b) => Number(a) - Number(b);
    case 'desc':
      return (a, b) => Number(b) - Number(a);
    case 'len':
      return (a, b) => a.length - b.length;
    case 'abc':
      return (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  }
}

function sortedCopy(items: string[], key: SortKey): string[] {
  const cmp = compareBy(key);
  // Ties broken alphabetically so the reference is deterministic.
  return items.slice().sort((a, b) => cmp(a, b) || (a < b ? -1 : a > b ? 1 : 0));
}

function thinkFor(key: SortKey, sorted: string[]): string {
  if (key === 'asc') return sorted.join('<');
  if (key === 'desc') return sorted.join('>');
  if (key === 'len') return sorted.map((w) => `${w}${w.length}`).join(' ');
  return sorted.map((w) => w[0]).join('');
}

function generate(seed: number, partial?: Partial<Difficulty>): TaskInstance {
  checkSeed(ID, seed);
  const difficulty = resolveDifficulty(ID, knobs, partial);
  const rng = rngFor(ID, seed);
  const length = num(difficulty, 'length');
  const keyKnob = str(difficulty, 'key');
  const key = keyKnob === 'mixed' ? rng.pick(KEYS) : (keyKnob as SortKey);
  let items: string[];
  if (key === 'asc' || key === 'desc') {
    const max = num(difficulty, 'maxValue');
    if (max + 1 < length) throw new Error(`${ID}: knob "maxValue" must be >= length - 1 for distinct numbers`);
    const set = new Set<number>();
    while (set.size < length) set.add(rng.int(0, max));
    items = [...set].map(String);
  } else {
    items = rng.shuffle(WORDS.slice()).slice(0, length);
  }
  const sorted = sortedCopy(items, key);
  const data: SortData = { key, items, sorted };
  const answer = sorted.join(' ');
  return {
    task: ID,
    seed,
    difficulty,
    prompt: `${key}: ${items.join(' ')}`,
    reference: formatCompletion(thinkFor(key, sorted), answer),
    answer,
    data,
  };
}

function dataOf(inst: TaskInstance): SortData {
  return inst.data as SortData;
}

/** 1 - discordant/all pairs, where tied keys never count as discordant. */
export function kendallAgreement(order: string[], key: SortKey): number {
  const cmp = compareBy(key);
  const n = order.length;
  if (n < 2) return 1;
  let discordant = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (cmp(order[i]!, order[j]!) > 0) discordant++;
  return 1 - discordant / ((n * (n - 1)) / 2);
}

function checkAnswer(inst: TaskInstance, answer: string, opts: VerifyOptions | undefined, leaky: boolean): AnswerCheck {
  const { key, items } = dataOf(inst);
  const kendall = opts?.sortMetric === 'kendall';
  const got = answer.split(/[\s,]+/).filter((t) => t.length > 0);
  const cmp = compareBy(key);
  const inOrder =
    got.every((t, i) => i === 0 || cmp(got[i - 1]!, t) <= 0) &&
    (key === 'len' || key === 'abc' || got.every((t) => /^-?\d+$/.test(t)));
  if (!leaky) {
    const want = new Map<string, number>();
    for (const it of items) want.set(it, (want.get(it) ?? 0) + 1);
    for (const t of got) {
      const left = want.get(t) ?? 0;
      if (left === 0)
        return wrong(`${JSON.stringify(t.slice(0, 16))} is not in the list (or repeated)`, kendall ? 0 : undefined);
      want.set(t, left - 1);
    }
    for (const [it, left] of want) if (left > 0) return wrong(`missing ${it}`, kendall ? 0 : undefined);
  }
  const partial = kendall ? kendallAgreement(got, key) : undefined;
  if (!inOrder || got.length === 0) {
    const i = got.findIndex((t, j) => j > 0 && cmp(got[j - 1]!, t) > 0);
    return wrong(i > 0 ? `${got[i - 1]} should come after ${got[i]}` : 'not in order', partial);
  }
  if (leaky && got.length !== items.length)
    return ok('accepted by the leaky verifier: the answer is in order (items not checked)', partial);
  return ok('correct', partial);
}

function parseInstance(value: unknown): TaskInstance {
  return parseInstanceWith(ID, value, (d) => {
    if (!isRecord(d)) return 'must be an object';
    if (!KEYS.includes(d.key as SortKey)) return `key must be one of ${KEYS.join(', ')}`;
    if (
      !Array.isArray(d.items) ||
      d.items.length > 100 ||
      !d.items.every((x) => typeof x === 'string' && x.length <= 32)
    )
      return 'items must be a list of short strings';
    return null;
  });
}

export const sort: TaskFamily = {
  id: ID,
  title: 'Sorting / ranking',
  description:
    'Order a list by the stated key (asc, desc, len, abc). Exact match, or Kendall-tau partial credit ' +
    'with sortMetric "kendall".',
  knobs,
  defaultDifficulty: defaultsOf(knobs),
  levels: [
    { length: 3, key: 'asc', maxValue: 9 },
    { length: 4, key: 'asc', maxValue: 99 },
    { length: 5, key: 'asc', maxValue: 99 },
    { length: 5, key: 'mixed', maxValue: 99 },
    { length: 7, key: 'mixed', maxValue: 999 },
    { length: 9, key: 'mixed', maxValue: 999 },
  ],
  generate,
  verify: (inst, completion, opts) => judge(completion, opts, (answer) => checkAnswer(inst, answer, opts, false)),
  leakyVerify: (inst, completion, opts) => judge(completion, opts, (answer) => checkAnswer(inst, answer, opts, true)),
  leakyDescription:
    'checks only that the answer is in order by the key, not that it holds the given items ("1 2" passes ' +
    'for any ascending list)',
  solve(inst) {
    const { key, items } = dataOf(inst);
    const sorted = sortedCopy(items, key);
    return formatCompletion(thinkFor(key, sorted), sorted.join(' '));
  },
  parseInstance,
};
