// The store-only ZIP writer, read back by an independent reader: Python's zipfile (python3 is on every
// machine this project runs on), which checks each entry's CRC-32 as it extracts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 as nodeCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Rng } from './rng.ts';
import { crc32, zipStore } from './zip.ts';

describe('zipStore', () => {
  it('CRC-32 matches zlib', () => {
    const rng = new Rng(3);
    for (const n of [0, 1, 7, 1000, 65_537]) {
      const data = Uint8Array.from({ length: n }, () => Math.floor(rng.next() * 256));
      expect(crc32(data)).toBe(nodeCrc32(data));
    }
  });

  it("writes an archive that Python's zipfile tests and extracts byte for byte", () => {
    const rng = new Rng(5);
    const entries = [
      { name: 'm-hf/config.json', data: new TextEncoder().encode('{"model_type": "gpt2"}\n') },
      { name: 'm-hf/onnx/model.onnx', data: Uint8Array.from({ length: 300_000 }, () => Math.floor(rng.next() * 256)) },
      { name: 'm-hf/empty.txt', data: new Uint8Array(0) },
      { name: 'm-hf/naïve ✓.txt', data: Uint8Array.from({ length: 256 }, (_, i) => i) },
    ];
    const dir = mkdtempSync(join(tmpdir(), 'rlvr-zip-'));
    const zip = join(dir, 'm-hf.zip');
    writeFileSync(zip, zipStore(entries, new Date(2026, 10, 23, 1, 2, 4)));
    const listing = execFileSync(
      'python3',
      [
        '-c',
        'import json,sys,zipfile\nz=zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is ' +
          'None\nprint(json.dumps([[i.filename,i.file_size,i.compress_type,list(i.date_time)] for i in ' +
          'z.infolist()]))',
        zip,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(listing)).toEqual(entries.map((e) => [e.name, e.data.length, 0, [2026, 11, 23, 1, 2, 4]]));
    execFileSync('python3', ['-m', 'zipfile', '-e', zip, join(dir, 'out')]);
    for (const e of entries) expect(Buffer.compare(readFileSync(join(dir, 'out', e.name)), e.data), e.name).toBe(0);
  });

  it('refuses entry names that would escape the folder', () => {
    expect(() => zipStore([{ name: '../x', data: new Uint8Array(1) }])).toThrow(/relative path without ".."/);
    expect(() => zipStore([{ name: '/etc/x', data: new Uint8Array(1) }])).toThrow(/relative path/);
  });
});
