import { describe, expect, it } from 'vitest';
import { createNodeBackend } from '../engine/backend-node.ts';
import { createNodeWasmBackend } from '../engine/backend-node-wasm.ts';
import type { Backend } from '../engine/backend.ts';
import { samplerScorerParity } from './parity.ts';

const backends: [string, () => Backend][] = [
  ['onnxruntime-node', () => createNodeBackend()],
  ["onnxruntime-web's WASM EP (in Node)", () => createNodeWasmBackend(1)],
];

// The browser backends run the same check in e2e/engine.spec.mjs (harness mode "parity").
describe.each(backends)('policy on %s', (_name, makeBackend) => {
  it('KV-cache sampler log-probs equal the scoring graph within 1e-4', async () => {
    const p = await samplerScorerParity(makeBackend());
    expect(p.longest).toBeGreaterThan(5);
    expect(Math.max(p.maxLogpDiff, p.maxEntropyDiff)).toBeLessThan(1e-4);
    // Same seed, same samples.
    expect(p.reproducible).toBe(true);
    // 8 rows, 4 distinct prompts: interleaved, every row has its own prompt pass; in groups, one per prompt.
    expect(p.sessions.filter((k) => k.startsWith('prefill:'))).toEqual(['prefill:8x24', 'prefill:4x24']);
    expect(p.sessions.filter((k) => k.startsWith('decode:'))).toEqual([
      'decode:8>8x24+40:false',
      'decode:4>8x24+40:false',
    ]);
  });
});
