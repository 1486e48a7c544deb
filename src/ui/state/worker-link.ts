import type { SessionEvent } from '../../../workers/protocol.ts';
import { TrainerClient } from './worker-client.ts';
import { Watchdog } from './watchdog.ts';

/**
 * The page's one training worker. It is created on first use and again after a crash; the watchdog
 * declares a worker that stops answering dead. The controller connects the event and crash handlers
 * once, so this module never imports it back.
 */
type Handlers = { onEvents(events: SessionEvent[]): void; onCrash(why: string): void };

let handlers: Handlers | null = null;
let main: TrainerClient | null = null;
const watchdog = new Watchdog();
const dropListeners: (() => void)[] = [];

export function connectWorker(h: Handlers): void {
  handlers = h;
}

export function client(): TrainerClient {
  if (!main || main.dead) {
    if (!handlers) throw new Error('worker-link: connectWorker() must run before the first call to the worker');
    main = new TrainerClient('trainer', handlers.onEvents, handlers.onCrash);
    watchdog.start(() => main, declareDead);
  }
  return main;
}

/** The worker if one is alive, without starting one. */
export function liveClient(): TrainerClient | null {
  return main && !main.dead ? main : null;
}

/** Called whenever the worker is dropped: calls waiting on it will never be answered. */
export function onWorkerDropped(f: () => void): void {
  dropListeners.push(f);
}

/** Terminates the worker; the next client() starts a fresh one. */
export function dropWorker(): void {
  const old = main;
  main = null;
  old?.terminate();
  for (const f of dropListeners) f();
}

function declareDead(c: TrainerClient, why: string): void {
  c.terminate(why);
  if (main === c) main = null;
  for (const f of dropListeners) f();
  handlers?.onCrash(why);
}

/** Tests: how long (ms) the watchdog waits for a worker that stopped answering. */
export function setWatchdogMs(ms: number): void {
  watchdog.setTimeout(ms);
  if (main) watchdog.start(() => main, declareDead);
}
