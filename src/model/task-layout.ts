import { getTaskFamily } from '../tasks/registry.ts';
import type { Difficulty } from '../tasks/types.ts';
import type { Layout } from './layout.ts';
import { charCodec, type TextCodec } from './text-codec.ts';

const roundUp8 = (n: number) => Math.ceil(n / 8) * 8;

/**
 * The smallest fixed grid that fits a task at the given difficulties: longest prompt, and longest
 * reference completion plus slack for a policy that rambles a little. Attention cost grows with the
 * square of this length, so it is measured rather than set to the model's maximum.
 */
export function layoutFor(
  entries: { task: string; difficulty?: Partial<Difficulty> }[],
  slack = 8,
  probe = 200,
  codec: TextCodec = charCodec,
): Layout {
  let p = 0;
  let c = 0;
  for (const e of entries) {
    const fam = getTaskFamily(e.task);
    const seen = Array.from({ length: probe }, (_, s) => fam.generate(9_000_000 + s, e.difficulty));
    for (const inst of [...seen, ...(fam.extremes?.() ?? [])]) {
      p = Math.max(p, codec.encodePrompt(inst.prompt).length);
      c = Math.max(c, codec.encodeContinuation(inst.reference).length + 1);
    }
  }
  return { promptLen: roundUp8(p + 2), completionLen: roundUp8(c + slack) };
}
