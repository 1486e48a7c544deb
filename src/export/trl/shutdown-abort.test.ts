import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { launchOnceMoreAfterShutdownAbort } from './shutdown-abort.ts';

const abort = new Error('accelerate launch failed (1):\nterminate called without an active exception\nSIGABRT');

/** An output folder holding what a first launch left. */
function outputFolder(): string {
  const out = mkdtempSync(join(tmpdir(), 'rlvr-shutdown-abort-'));
  writeFileSync(join(out, 'run.rlvr.gz'), 'from the first launch');
  return out;
}

describe('launchOnceMoreAfterShutdownAbort', () => {
  it('launches once more, from an emptied output folder, after the shutdown abort alone', async () => {
    const out = outputFolder();
    const calls: string[] = [];
    const launch = vi.fn(async () => {
      calls.push(existsSync(out) ? 'launch (folder kept)' : 'launch (folder emptied)');
      if (calls.length === 1) throw abort;
      return 'trained';
    });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await expect(launchOnceMoreAfterShutdownAbort(launch, out)).resolves.toBe('trained');
    expect(calls).toEqual(['launch (folder kept)', 'launch (folder emptied)']);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/aborted at shutdown after training/));
    warn.mockRestore();
  });

  it('fails on any other failure, and on the same abort twice', async () => {
    const out = outputFolder();
    const other = vi.fn(async () => Promise.reject(new Error('RuntimeError: shapes do not match')));
    await expect(launchOnceMoreAfterShutdownAbort(other, out)).rejects.toThrow(/shapes/);
    expect(other).toHaveBeenCalledTimes(1);
    expect(existsSync(out), 'another failure leaves the folder as it was').toBe(true);
    const twice = vi.fn(async () => Promise.reject(abort));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await expect(launchOnceMoreAfterShutdownAbort(twice, out)).rejects.toThrow(/terminate called/);
    expect(twice).toHaveBeenCalledTimes(2);
    warn.mockRestore();
  });
});
