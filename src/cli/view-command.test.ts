/**
 * `rlvr view`'s refusals before it serves (src/cli/commands/view.ts): a PATH that is missing or is not
 * a folder, and bad flags, end with a clear message and exit code 2, never a system error's text.
 * Serving itself is covered by src/node/view-server.test.ts and e2e/view.spec.mjs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlvr-view-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function run(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { code: await main(argv), stderr };
  } finally {
    spy.mockRestore();
  }
}

describe('rlvr view refuses what it cannot serve', () => {
  it('a PATH that does not exist: exit 2, named', async () => {
    const missing = join(tmp, 'no-such-run');
    const r = await run(['view', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rlvr view: ${missing}: no such folder\n`);
  });

  it('a PATH that is a file: exit 2, named', async () => {
    const file = join(tmp, '1.jsonl');
    writeFileSync(file, '{}\n');
    const r = await run(['view', tmp, file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rlvr view: ${file}: not a folder (give the folder that holds the runs)\n`);
  });

  it('no PATH, a bad --port, an unknown flag: exit 2 with the usage', async () => {
    for (const [argv, message] of [
      [['view'], 'give at least one folder to serve'],
      [['view', tmp, '--port', 'http'], '--port must be a port number from 1 to 65535, got "http"'],
      [['view', tmp, '--port', '70000'], '--port must be a port number from 1 to 65535, got "70000"'],
      [['view', tmp, '--logdir', tmp], 'unknown flag --logdir'],
    ] as const) {
      const r = await run([...argv]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`rlvr view: ${message}`);
      expect(r.stderr).toContain('rlvr view PATH... [--port P] [--host H]');
    }
  });
});
