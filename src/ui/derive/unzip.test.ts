// The page's zip reader against real archives: the page's own writer (src/util/zip.ts, stored) and
// Python's zipfile (deflated, as `zip` and the operating systems write); a damaged entry or a file
// that is not a zip is refused with a message that says so.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng.ts';
import { zipStore } from '../../util/zip.ts';
import { unzip } from './unzip.ts';

const rng = new Rng(11);
const files: [string, Uint8Array][] = [
  ['m-hf/config.json', new TextEncoder().encode('{"model_type": "gpt2"}\n'.repeat(50))],
  ['m-hf/model.safetensors', Uint8Array.from({ length: 200_000 }, () => Math.floor(rng.next() * 256))],
  ['m-hf/onnx/empty.bin', new Uint8Array(0)],
];

describe('unzip', () => {
  it('reads the stored archive zipStore writes', async () => {
    const got = await unzip(zipStore(files.map(([name, data]) => ({ name, data }))));
    expect([...got.keys()]).toEqual(files.map(([n]) => n));
    for (const [name, data] of files) expect(Buffer.compare(Buffer.from(got.get(name)!), Buffer.from(data))).toBe(0);
  });

  it("reads a deflated archive written by Python's zipfile, folders left out", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlvr-unzip-'));
    for (const [name, data] of files) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), data);
    }
    execFileSync('python3', ['-m', 'zipfile', '-c', join(dir, 'a.zip'), 'm-hf'], { cwd: dir });
    const bytes = new Uint8Array(readFileSync(join(dir, 'a.zip')));
    const methods = execFileSync(
      'python3',
      [
        '-c',
        'import sys, zipfile; print(sorted({i.compress_type ' +
          'for i in zipfile.ZipFile(sys.argv[1]).infolist() ' +
          'if not i.is_dir()}))',
        join(dir, 'a.zip'),
      ],
      { encoding: 'utf8' },
    );
    expect(methods.trim()).toBe('[8]');
    const got = await unzip(bytes);
    expect([...got.keys()].sort()).toEqual(files.map(([n]) => n).sort());
    for (const [name, data] of files) expect(Buffer.compare(Buffer.from(got.get(name)!), Buffer.from(data))).toBe(0);
    await expect(unzip(bytes, 100_000)).rejects.toThrow(/unpacks to more than 100000 bytes/);
  });

  it('refuses a damaged entry and a file that is not a zip, saying so', async () => {
    const zip = zipStore(files.map(([name, data]) => ({ name, data })));
    const damaged = zip.slice();
    damaged[30 + 'm-hf/config.json'.length + 5]! ^= 0xff;
    await expect(unzip(damaged)).rejects.toThrow(/m-hf\/config\.json: size or CRC-32 does not match/);
    await expect(unzip(new TextEncoder().encode('{"model_type": "gpt2"}'))).rejects.toThrow(/not a zip archive/);
  });
});
