/**
 * The PyTorch peer, driven from Node: makes sure Debian's python3-torch and OpenBLAS are installed
 * (installs them with apt-get when missing, and says so), then runs bench/torch_peer.py as a
 * long-lived child that answers one JSON line per command, so runs can alternate with ours without
 * paying for `import torch` each time.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** Debian's interpreter: the python3 first on PATH may be another one that cannot see python3-torch. */
export const PYTHON = process.env.RLVR_BENCH_PYTHON || '/usr/bin/python3';
const PACKAGES = ['python3-torch', 'libopenblas0-pthread'];

function dpkgInstalled(pkg: string): boolean {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

function torchImports(): boolean {
  return spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8' }).status === 0;
}

export interface TorchInstall {
  python: string;
  installed: string[];
  note: string;
  /** The active libblas.so.3 (update-alternatives), which is what Debian's torch calls. */
  blasAlternative: string;
}

/** Installs python3-torch and libopenblas0-pthread with apt-get when either is missing. */
export function ensureTorch(log: (s: string) => void): TorchInstall {
  if (!existsSync(PYTHON))
    throw new Error(`${PYTHON} not found (Debian's python3 is needed for python3-torch; set RLVR_BENCH_PYTHON)`);
  const missing = PACKAGES.filter((p) => !dpkgInstalled(p));
  let note = `${PACKAGES.join(' and ')} already installed`;
  if (missing.length || !torchImports()) {
    const want = missing.length ? missing : ['python3-torch'];
    log(
      `PyTorch peer: installing ${want.join(' ')} with apt-get (missing on this machine; this takes a minute or two)`,
    );
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    let r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...want], { encoding: 'utf8', env });
    if (r.status !== 0) {
      log('PyTorch peer: apt-get install failed, running apt-get update and retrying');
      spawnSync('apt-get', ['update'], { encoding: 'utf8', env });
      r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...want], { encoding: 'utf8', env });
    }
    if (r.status !== 0)
      throw new Error(
        `apt-get install ${want.join(' ')} failed (are you root?):\n${(r.stderr || r.stdout).slice(-2000)}`,
      );
    if (!torchImports()) throw new Error(`installed ${want.join(' ')} but ${PYTHON} still cannot import torch`);
    note = `installed ${want.join(' ')} with apt-get (they were missing)`;
  }
  const alt = spawnSync('update-alternatives', ['--query', 'libblas.so.3-x86_64-linux-gnu'], { encoding: 'utf8' });
  const blasAlternative = /^Value: (.*)$/m.exec(alt.stdout ?? '')?.[1] ?? 'unknown';
  return { python: PYTHON, installed: missing, note, blasAlternative };
}

export type PeerReply = Record<string, unknown> & { ok: boolean; error?: string };

/** One python3 process running bench/torch_peer.py; `call` sends a command and waits for its reply line. */
export class TorchPeer {
  private lines: AsyncIterator<string>;
  private stderr: string[] = [];

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      this.stderr.push(d);
      if (this.stderr.length > 200) this.stderr.shift();
    });
  }

  /** `script` in `benchDir` under `python` (default: Debian's python3 running torch_peer.py). */
  static start(benchDir: string, threads: number, script = 'torch_peer.py', python = PYTHON): TorchPeer {
    const child = spawn(python, [join(benchDir, script)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      // OpenBLAS and OpenMP pools sized like ORT's: the same two cores.
      env: {
        ...process.env,
        OMP_NUM_THREADS: String(threads),
        OPENBLAS_NUM_THREADS: String(threads),
        PYTHONUNBUFFERED: '1',
      },
    });
    return new TorchPeer(child);
  }

  async call(cmd: Record<string, unknown>): Promise<PeerReply> {
    this.child.stdin.write(JSON.stringify(cmd) + '\n');
    const next = await this.lines.next();
    if (next.done)
      throw new Error(`the PyTorch peer exited (code ${this.child.exitCode}):\n${this.stderr.join('').slice(-3000)}`);
    const reply = JSON.parse(next.value) as PeerReply;
    if (!reply.ok) throw new Error(`PyTorch peer, command "${String(cmd.cmd)}": ${reply.error}`);
    return reply;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.child.stdin.end();
    await new Promise((ok) => {
      const t = setTimeout(() => {
        this.child.kill();
        ok(undefined);
      }, 5000);
      this.child.once('exit', () => {
        clearTimeout(t);
        ok(undefined);
      });
    });
  }
}
