// The bench page: one module worker per browser backend, and `window.__bench.call(kind, request)`
// for Playwright. Shows what it is doing, for people watching.
import type { BenchReply, BenchRequest } from './protocol.ts';

type Kind = 'wasm' | 'webgpu';

declare global {
  interface Window {
    __bench: { ready: boolean; crossOriginIsolated: boolean; call(kind: Kind, req: BenchRequest): Promise<BenchReply> };
  }
}

const statusEl = document.getElementById('status')!;
const logEl = document.getElementById('log')!;
const workers = new Map<Kind, Worker>();
const pending = new Map<number, (r: BenchReply) => void>();
let nextId = 0;

function worker(kind: Kind): Worker {
  let w = workers.get(kind);
  if (!w) {
    w = new Worker(new URL('./bench.worker.ts', import.meta.url), { type: 'module', name: `bench-${kind}` });
    w.onmessage = (e: MessageEvent<{ id: number; reply: BenchReply }>) => {
      pending.get(e.data.id)?.(e.data.reply);
      pending.delete(e.data.id);
    };
    w.onerror = (e) => {
      for (const [id, done] of pending) {
        done({ ok: false, error: `${kind} worker error: ${e.message}` });
        pending.delete(id);
      }
    };
    workers.set(kind, w);
  }
  return w;
}

window.__bench = {
  ready: true,
  crossOriginIsolated,
  call(kind, req) {
    const id = nextId++;
    statusEl.textContent = `${kind}: ${req.cmd} ${'preset' in req ? req.preset : ''}`;
    return new Promise<BenchReply>((ok) => {
      pending.set(id, (r) => {
        logEl.textContent +=
          `${kind} ${req.cmd}${'preset' in req ? ' ' + req.preset : ''}` +
          `: ${r.ok ? ('ms' in r ? `${Number(r.ms).toFixed(0)} ms` : 'ok') : 'ERROR ' + r.error}\n`;
        ok(r);
      });
      worker(kind).postMessage({ id, req });
    });
  },
};
statusEl.textContent = `ready (crossOriginIsolated=${crossOriginIsolated})`;
