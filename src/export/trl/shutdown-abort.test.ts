import { describe, expect, it, vi } from 'vitest';
import { launchOnceMoreAfterShutdownAbort } from './shutdown-abort.ts';

const abort = new Error('accelerate launch failed (1):\nterminate called without an active exception\nSIGABRT');

describe('launchOnceMoreAfterShutdownAbort', () => {
  it('launches once more, from a reset folder, after the shutdown abort alone', async () => {
    const calls: string[] = [];
    const launch = vi.fn(async () => {
      calls.push('launch');
      if (calls.length === 1) throw abort;
      return 'trained';
    });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await expect(launchOnceMoreAfterShutdownAbort(launch, () => calls.push('reset'))).resolves.toBe('trained');
    expect(calls).toEqual(['launch', 'reset', 'launch']);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/aborted at shutdown after training/));
    warn.mockRestore();
  });

  it('fails on any other failure, and on the same abort twice', async () => {
    const other = vi.fn(async () => Promise.reject(new Error('RuntimeError: shapes do not match')));
    await expect(launchOnceMoreAfterShutdownAbort(other, () => undefined)).rejects.toThrow(/shapes/);
    expect(other).toHaveBeenCalledTimes(1);
    const twice = vi.fn(async () => Promise.reject(abort));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await expect(launchOnceMoreAfterShutdownAbort(twice, () => undefined)).rejects.toThrow(/terminate called/);
    expect(twice).toHaveBeenCalledTimes(2);
    warn.mockRestore();
  });
});
