import { session, type Session } from './session.ts';
import { TrainerClient } from './worker-client.ts';
import { Watchdog } from './watchdog.ts';

/**
 * The page's one training worker, the live run's handle (a TrainerClient: worker-handle.ts). It is created on
 * first use and again after a crash; the watchdog declares a worker that stops answering dead, and
 * dropWorker disposes of it. The controller connects the event and crash handlers once, so this module never
 * imports it back.
 */
type Handlers = NonNullable<Session['workerHandlers']>;

// The worker (session.worker) and its handlers (session.workerHandlers) are the session's: a test sees them.
const watchdog = new Watchdog();
const dropListeners: (() => void)[] = [];

export function connectWorker(h: Handlers): void {
  session.workerHandlers = h;
}

export function client(): TrainerClient {
  const live = session.worker;
  if (live && !live.dead) return live;
  const handlers = session.workerHandlers;
  if (!handlers) throw new Error('worker-link: connectWorker() must run before the first call to the worker');
  const main = new TrainerClient('trainer', handlers.onEvents, handlers.onCrash);
  session.worker = main;
  watchdog.start(() => session.worker, declareDead);
  return main;
}

/** The worker if one is alive, without starting one. */
export function liveClient(): TrainerClient | null {
  const main = session.worker;
  return main && !main.dead ? main : null;
}

/** Called whenever the worker is dropped: calls waiting on it will never be answered. */
export function onWorkerDropped(f: () => void): void {
  dropListeners.push(f);
}

/** Disposes of the worker's handle (the worker ends); the next client() starts a fresh one. */
export function dropWorker(): void {
  const old = session.worker;
  session.worker = null;
  old?.dispose();
  for (const f of dropListeners) f();
}

function declareDead(c: TrainerClient, why: string): void {
  c.terminate(why);
  if (session.worker === c) session.worker = null;
  for (const f of dropListeners) f();
  session.workerHandlers?.onCrash(why);
}

/** Tests: how long (ms) the watchdog waits for a worker that stopped answering. */
export function setWatchdogMs(ms: number): void {
  watchdog.setTimeout(ms);
  if (session.worker) watchdog.start(() => session.worker, declareDead);
}
