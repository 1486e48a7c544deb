import type { SessionEvent } from '../../../workers/protocol.ts';
import type { SideId } from './store.ts';
import type { TrainerClient } from './worker-client.ts';
import type { RunHandle } from './viewer-state.ts';
import { RecordReaders } from './record-readers.ts';

/** What this tab tells the others about itself on the tabs' channel (tabs.ts joinTabs). */
export interface TabDescription {
  experiment?: string;
  state?: string;
  step?: number;
  task?: string;
}

/**
 * The page's session: what no view draws but what decides which run, tab, worker and answer is the live
 * one. Which tab this is and the run it holds open, the live trainer worker's handle, the autosave's run id,
 * the tickets that say which long job's answer still counts, Compare's workers' handles, the run viewer's
 * opened runs and running searches, the latest record open and the record readers started ahead. One
 * object, created here beside the store (the store holds only plain data: store-serialisable.test.ts), so
 * that a test (or a reset) sees all of it and can clear it (resetSession); no module keeps such state in a
 * variable of its own (src/ui/module-state.test.ts lists the few that may: caches). Each worker's handle
 * (worker-handle.ts) owns its worker's lifetime and pause request, and ends it with dispose().
 */
export interface Session {
  /** This tab's id (tabs.ts): read from (or written to) sessionStorage on first use; '' until then. */
  tabId: string;
  /** The run this tab holds open with a Web Lock, and how to let it go (tabs.ts holdRun). */
  heldRun: { runId: string; release: () => void } | null;
  /** The tabs' presence channel once joined, and what this tab says of itself on it (tabs.ts joinTabs). */
  tabChannel: BroadcastChannel | null;
  describeTab: () => TabDescription;
  /** The live run's id: the key of its saved record, held open by this tab (autosave.ts setRunId). */
  runId: string | null;
  /** The latest pruning of the saved runs: for which run, and when (ms), autosave.ts. */
  pruned: { runId: string; at: number } | null;
  /** The live run's worker's handle (null before the first call and after a crash or drop), worker-link.ts. */
  worker: TrainerClient | null;
  /** Where that worker's events and crash go (the controller connects them once, worker-link.ts). */
  workerHandlers: { onEvents(events: SessionEvent[]): void; onCrash(why: string): void } | null;
  /**
   * Each warm-start / pass@k press takes a ticket; an answer whose ticket is not the latest is dropped
   * (long-jobs.ts).
   */
  warmStartTicket: number;
  passkTicket: number;
  /** The run viewer's latest alignment of two runs (viewer-align.ts): an older one's answer is dropped. */
  alignTicket: number;
  /**
   * Compare's workers' handles by side (compare.ts): each owns its worker and its pause request; stopCompare
   * disposes of them, and a disposed one's events are dropped.
   */
  compareClients: Partial<Record<SideId, TrainerClient>>;
  /** The latest record open's number: a slower earlier open that finishes later is dropped (recording-read.ts). */
  recordOpening: number;
  /** The run reader workers that decode recordings, with those started ahead (record-readers.ts). */
  recordReaders: RecordReaders;
  /**
   * The run viewer's opened runs by key (ViewerRun.key; the store says only `opened`), and its running
   * searches' and findings' cancellers by id (ViewerSearch.job, ViewerFindings.job): viewer-handles.ts.
   */
  viewerRuns: Map<string, RunHandle>;
  viewerJobs: Map<number, AbortController>;
  viewerJobId: number;
  /** The store subscription that ends a lesson's hold on the URL when its form is edited (lessons.ts). */
  setupEditsWatch: (() => void) | null;
  /** boot() has finished: this tab's own run is restored, or the saved runs are offered (boot.ts). */
  bootDone: boolean;
  /** When the page will not reload itself for isolation, and whether that is already so (offline-state.ts). */
  isolationSettled: Promise<void>;
  isolationSettledNow: boolean;
  /**
   * A fresh run's Start (performance.now(), ms) until its first step arrives, then the seconds between: the
   * start the time estimate adds to a run not started yet (pace.ts).
   */
  freshStart: { pressedAt: number; firstStepWall: number | null } | null;
  /**
   * The run load in flight (initRun or restoreSaved), if any. A press that needs a run waits for it
   * (run-load.ts ensureRun): the page shows a restored run's steps as soon as the worker's init answers, a
   * status batch later than its state, and a Step once pressed in between must step that run, not load a
   * new one over it. Here, not in the store: the store holds only what the page shows.
   */
  loadInFlight: Promise<unknown> | null;
  /** The pending live-config sync (live-config.ts scheduleSync), debounced. */
  syncTimer: ReturnType<typeof setTimeout> | null;
}

export function newSession(): Session {
  return {
    tabId: '',
    heldRun: null,
    tabChannel: null,
    describeTab: () => ({}),
    runId: null,
    pruned: null,
    worker: null,
    workerHandlers: null,
    warmStartTicket: 0,
    passkTicket: 0,
    alignTicket: 0,
    compareClients: {},
    recordOpening: 0,
    recordReaders: new RecordReaders(),
    viewerRuns: new Map(),
    viewerJobs: new Map(),
    viewerJobId: 0,
    setupEditsWatch: null,
    bootDone: false,
    isolationSettled: Promise.resolve(),
    isolationSettledNow: true,
    freshStart: null,
    loadInFlight: null,
    syncTimer: null,
  };
}

/** The page's one session (see Session). Modules read and write its fields; nothing replaces the object. */
export const session: Session = newSession();

/**
 * Tests: forgets the session (a fresh one's values in the same object). It closes nothing: a held lock,
 * a joined channel or a live worker is dropped from sight, not ended.
 */
export function resetSession(): void {
  Object.assign(session, newSession());
}
