/**
 * Which saved run is whose, and which other tabs are open on what.
 *
 * - A tab's identity and the id of its run live in sessionStorage: they survive the tab's own reload
 *   but a new tab starts without them. A tab saves only its own run's record (persist.ts).
 * - While a tab has a run it holds a Web Lock named after it. A lock is released when its tab closes,
 *   so a held lock means "open in another tab": restoring such a run makes a copy under a new id
 *   instead of sharing the record, and a duplicated tab (whose sessionStorage was copied) starts a
 *   run of its own.
 * - Tabs tell each other, over a BroadcastChannel, which experiment they have and what state their
 *   run is in; the page warns when another tab has the same experiment (Banners.tsx).
 */
import { create } from 'zustand';
import type { TabDescription } from './session.ts';
import { session } from './session.ts';

const TAB_KEY = 'rlvr.tabId';
/** Also the key of earlier versions, so a tab that saved the single-slot autosave still owns it. */
const TAB_RUN_KEY = 'rlvr.tabRun';
/**
 * The last step this tab showed (its run and step), written on every step: a reload compares it with what was saved.
 */
const SHOWN_KEY = 'rlvr.shownStep';
/** The run this tab was training when it last said so (removed on pause, end or error): a reload offers Resume. */
const TRAINING_KEY = 'rlvr.training';
const LOCK_PREFIX = 'rlvr-run:';
const CHANNEL = 'rlvr-tabs';
/** How often a tab repeats its state, and after how long without one another tab counts as gone. */
const HEARTBEAT_MS = 4_000;
const GONE_MS = 12_000;

function tabStorage(): Storage | null {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // storage blocked: every load counts as a new tab
  }
}
function read(key: string): string | null {
  try {
    return tabStorage()?.getItem(key) ?? null;
  } catch {
    return null;
  }
}
function write(key: string, value: string | null): void {
  try {
    if (value === null) tabStorage()?.removeItem(key);
    else tabStorage()?.setItem(key, value);
  } catch {
    /* not remembered */
  }
}

const newId = () => Math.random().toString(36).slice(2, 10);

/** This tab's id (session.tabId): the one its sessionStorage names, or a new one written there. */
export function thisTab(): string {
  if (!session.tabId) {
    session.tabId = read(TAB_KEY) ?? '';
    if (!session.tabId) {
      session.tabId = newId();
      write(TAB_KEY, session.tabId);
    }
  }
  return session.tabId;
}
// The id is settled as the page loads (a duplicated tab's copied one is replaced later: becomeNewTab).
thisTab();

/** The id of the run this tab has (or last had), or null in a new tab. */
export function tabRunId(): string | null {
  return read(TAB_RUN_KEY);
}

export function setTabRun(runId: string): void {
  write(TAB_RUN_KEY, runId);
}

/**
 * This tab's sessionStorage was copied from a tab that is still open (the browser's "Duplicate tab"):
 * it becomes a tab of its own, with no run yet.
 */
export function becomeNewTab(): void {
  session.tabId = newId();
  write(TAB_KEY, session.tabId);
  write(TAB_RUN_KEY, null);
  write(SHOWN_KEY, null);
  write(TRAINING_KEY, null);
}

/**
 * Remembers the step the page now shows for `runId` (cheap and synchronous: it must be current when the page unloads).
 */
export function recordShownStep(runId: string, step: number): void {
  write(SHOWN_KEY, JSON.stringify({ runId, step }));
}

/** Remembers whether this tab's run `runId` is training (synchronous: it must be current when the page unloads). */
export function recordTraining(runId: string, training: boolean): void {
  if (training) write(TRAINING_KEY, runId);
  else if (read(TRAINING_KEY) === runId) write(TRAINING_KEY, null);
}

/** Whether `runId` was training in this tab when the page went away. */
export function wasTraining(runId: string): boolean {
  return read(TRAINING_KEY) === runId;
}

/** The last step this tab showed of `runId` before the reload, if it recorded one. */
export function shownStep(runId: string): number | null {
  try {
    const v = JSON.parse(read(SHOWN_KEY) ?? 'null') as { runId?: unknown; step?: unknown } | null;
    return v && v.runId === runId && typeof v.step === 'number' && Number.isInteger(v.step) ? v.step : null;
  } catch {
    return null;
  }
}

// ---- Web Locks: which runs are open in a tab -----------------------------------------------------

const locks = (): LockManager | null => (globalThis.navigator as Navigator | undefined)?.locks ?? null;

/** The runs some tab (this one included) holds open. Empty where Web Locks are missing. */
export async function openRuns(): Promise<Set<string>> {
  const l = locks();
  if (!l) return new Set();
  try {
    const q = await l.query();
    return new Set(
      (q.held ?? [])
        .map((x) => x.name ?? '')
        .filter((n) => n.startsWith(LOCK_PREFIX))
        .map((n) => n.slice(LOCK_PREFIX.length)),
    );
  } catch {
    return new Set();
  }
}

export function heldRun(): string | null {
  return session.heldRun?.runId ?? null;
}

/**
 * Holds `runId` open for this tab (and lets go of the run it held before). Resolves true when this
 * tab holds it, false when another tab does (true where the browser has no Web Locks). `waitMs`:
 * how long to wait for another holder to let go. A reloading tab's previous page may still hold its
 * own run for a moment, while a duplicated tab's original holds it for good.
 */
export async function holdRun(runId: string, waitMs = 0): Promise<boolean> {
  if (session.heldRun?.runId === runId) return true;
  session.heldRun?.release();
  session.heldRun = null;
  const l = locks();
  if (!l) return true;
  const abort = waitMs > 0 ? new AbortController() : null;
  const timer = abort ? setTimeout(() => abort.abort(), waitMs) : null;
  return new Promise<boolean>((ok) => {
    const got = (lock: Lock | null) => {
      if (timer) clearTimeout(timer);
      if (!lock) {
        ok(false);
        return undefined;
      }
      return new Promise<void>((release) => {
        session.heldRun = { runId, release: () => release() };
        ok(true);
      });
    };
    const name = LOCK_PREFIX + runId;
    (abort ? l.request(name, { signal: abort.signal }, got) : l.request(name, { ifAvailable: true }, got)).catch(
      (e: unknown) => ok((e as { name?: string } | null)?.name !== 'AbortError'),
    );
  });
}

// ---- presence: the other tabs, over a BroadcastChannel -------------------------------------------

export interface OtherTab {
  tabId: string;
  /** experimentKey of the tab's setup. */
  experiment: string;
  /** Its run's state (idle: no run yet) and step. */
  state: string;
  step: number;
  task: string;
  seenAt: number;
}

interface Presence extends TabDescription {
  type: 'here' | 'ask' | 'bye';
  tabId: string;
}

export const useTabs = create<{ others: OtherTab[] }>()(() => ({ others: [] }));

function post(msg: Presence): void {
  try {
    session.tabChannel?.postMessage(msg);
  } catch {
    /* the channel is closed (the page is going away) */
  }
}

/** Tells the other tabs this tab's state now (called when the experiment, run state or step changes). */
export function announce(): void {
  post({ type: 'here', tabId: thisTab(), ...session.describeTab() });
}

function prune(now = Date.now()): void {
  const others = useTabs.getState().others;
  const live = others.filter((o) => now - o.seenAt < GONE_MS);
  if (live.length !== others.length) useTabs.setState({ others: live });
}

/**
 * Joins the tabs' channel. `what` describes this tab (its experiment, run state and step); the caller
 * calls announce() when that changes.
 */
export function joinTabs(what: () => { experiment: string; state: string; step: number; task: string }): void {
  session.describeTab = what;
  if (session.tabChannel || typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(CHANNEL);
  session.tabChannel = channel;
  channel.onmessage = (ev: MessageEvent<Presence>) => {
    const m = ev.data;
    if (!m || typeof m.tabId !== 'string' || m.tabId === thisTab()) return;
    const rest = useTabs.getState().others.filter((o) => o.tabId !== m.tabId);
    if (m.type === 'bye') {
      useTabs.setState({ others: rest });
      return;
    }
    if (m.type === 'ask') announce();
    if (typeof m.experiment === 'string') {
      useTabs.setState({
        others: [
          ...rest,
          {
            tabId: m.tabId,
            experiment: m.experiment,
            state: String(m.state ?? 'idle'),
            step: Number(m.step ?? 0),
            task: String(m.task ?? ''),
            seenAt: Date.now(),
          },
        ],
      });
    }
  };
  post({ type: 'ask', tabId: thisTab(), ...session.describeTab() });
  setInterval(() => {
    announce();
    prune();
  }, HEARTBEAT_MS);
  addEventListener('pagehide', () => post({ type: 'bye', tabId: thisTab() }));
  // Back from the back/forward cache: the others dropped this tab on its 'bye'.
  addEventListener('pageshow', (e) => {
    if ((e as PageTransitionEvent).persisted) post({ type: 'ask', tabId: thisTab(), ...session.describeTab() });
  });
}
