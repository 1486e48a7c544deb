import { describe, expect, it } from 'vitest';
import { modelPresets } from '../model/config.ts';
import { parameterCount } from '../model/transformer.ts';
import { runWasmThreads, SMALL_MODEL_PARAMETERS } from './wasm-threads.ts';

describe('the run’s WASM threads by model size and cores (src/engine/wasm-threads.ts)', () => {
  it('one thread for a small model on at most 2 cores; the backend’s own choice otherwise', () => {
    const tiny = parameterCount(modelPresets.tiny);
    const small = parameterCount(modelPresets.small);
    expect(tiny).toBeLessThan(SMALL_MODEL_PARAMETERS);
    expect(small).toBeGreaterThan(SMALL_MODEL_PARAMETERS);
    expect(runWasmThreads(tiny, 2)).toBe(1);
    expect(runWasmThreads(tiny, 1)).toBe(1);
    expect(runWasmThreads(tiny, 4)).toBeUndefined();
    expect(runWasmThreads(small, 2)).toBeUndefined();
    expect(runWasmThreads(null, 2)).toBeUndefined();
  });
});
