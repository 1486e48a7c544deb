/**
 * Seeded pseudo-random numbers shared by task generators, the sampler and the trainer.
 * sfc32 seeded through splitmix32: fast, 128-bit state, and its state can be saved and restored
 * (checkpoints resume with the exact same random stream).
 */
export type RngState = [number, number, number, number];

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | RngState) {
    if (Array.isArray(seed)) {
      [this.a, this.b, this.c, this.d] = seed;
    } else {
      const sm = splitmix32(Math.floor(seed) >>> 0);
      this.a = sm();
      this.b = sm();
      this.c = sm();
      this.d = sm();
      for (let i = 0; i < 12; i++) this.nextU32();
    }
  }

  /** Derives an independent stream, e.g. one per prompt, from this seed and a label. */
  static derive(seed: number, ...labels: (number | string)[]): Rng {
    let h = Math.floor(seed) >>> 0;
    for (const l of labels) {
      const s = String(l);
      for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
      h = Math.imul(h ^ 0xff, 0x01000193) >>> 0;
    }
    return new Rng(h);
  }

  nextU32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /**
   * k items drawn without replacement, in draw order: the first k steps of a forward Fisher–Yates
   * (items is reordered in place), so drawing few of many costs k draws, not a whole shuffle.
   */
  sample<T>(items: T[], k: number): T[] {
    const n = Math.min(k, items.length);
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.next() * (items.length - i));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items.slice(0, n);
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }

  /** Standard normal via Box-Muller. */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  getState(): RngState {
    return [this.a, this.b, this.c, this.d];
  }
}
