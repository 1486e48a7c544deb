import { afterEach, describe, expect, it, vi } from 'vitest';
import { getState, setState } from './store.ts';
import { initRequest, threadsForModel } from './setup-state.ts';

describe('the live run’s WASM threads in its init request (src/engine/wasm-threads.ts)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('the page’s init request carries them: one for a tiny model on 2 cores, none for small, a link’s wins', () => {
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 });
    const setup = getState().setup;
    setState({ setup: { ...setup, model: 'tiny' } });
    expect(initRequest().threads).toBe(1);
    setState({ setup: { ...setup, model: 'small' } });
    expect(initRequest().threads).toBeUndefined();
    setState({ setup: { ...setup, model: 'tiny', threads: 2 } });
    expect(initRequest().threads).toBe(2);
    vi.stubGlobal('navigator', { hardwareConcurrency: 8 });
    setState({ setup: { ...setup, model: 'tiny' } });
    expect(initRequest().threads).toBeUndefined();
    setState({ setup });
  });

  it('a restored run gets them from its saved base model’s size', () => {
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 });
    expect(threadsForModel(200_000)).toEqual({ threads: 1 });
    expect(threadsForModel(5_000_000)).toEqual({});
    expect(threadsForModel(null)).toEqual({});
  });
});
