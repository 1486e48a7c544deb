/** Static shapes: every dimension is known when the graph is built, so shape errors surface at build time. */
export type Shape = readonly number[];

export type DType = 'float32' | 'int64' | 'bool';

export function size(shape: Shape): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function fmt(shape: Shape): string {
  return `[${shape.join(',')}]`;
}

export function sameShape(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** Numpy-style broadcasting; returns null when the shapes are incompatible. */
export function broadcastShapes(...shapes: Shape[]): number[] | null {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    let d = 1;
    for (const s of shapes) {
      const k = s.length - rank + i;
      const sd = k >= 0 ? s[k]! : 1;
      if (sd === 1) continue;
      if (d !== 1 && d !== sd) return null;
      d = sd;
    }
    out.push(d);
  }
  return out;
}

export function normAxis(axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) throw new Error(`axis ${axis} out of range for rank ${rank}`);
  return a;
}

export function strides(shape: Shape): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
}
