/**
 * A Start or Step once pressed before the page is settled. On a static host's first visit the service
 * worker (src/pwa/register.ts) reloads the page once to make it cross-origin isolated, a second or two
 * after load; a press made before that reload is kept here (sessionStorage survives the tab's own
 * reload, and no other tab sees it) and honoured by the reloaded page (main.tsx).
 */

export type Press = 'start' | 'step-once';

const KEY = 'rlvr.pendingPress';
/**
 * The longest a press waits on the first page for the service worker to settle before it goes ahead
 * anyway (offline-state.ts). Long, as the first install downloads the whole build, checkpoints and
 * recordings included, on a school's network.
 */
export const PRESS_WAIT_LIMIT_MS = 300_000;
/**
 * A press older than this is stale (the reload it waited for never came); it is dropped, not replayed.
 * It outlives the wait above: a press that waited the whole limit for a slow install is still the
 * person's press when the reload finally comes (a 120 s limit dropped presses on a loaded machine).
 */
const MAX_AGE_MS = PRESS_WAIT_LIMIT_MS + 60_000;

function session(): Storage | null {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // storage blocked: the press is honoured only if no reload comes
  }
}

/**
 * This document's load: a press is for the page that loads after it, never for the one that made it.
 * (The page that made it takes presses when its own start-up ends, main.tsx; a press made before
 * that, on a slow first load, was taken back by the same page and lost to the reload.)
 */
const THIS_LOAD = `${Math.round(globalThis.performance?.timeOrigin ?? 0)}-${Math.random().toString(36).slice(2)}`;

export function rememberPress(press: Press, now = Date.now(), load = THIS_LOAD): void {
  try {
    session()?.setItem(KEY, JSON.stringify({ press, at: now, load }));
  } catch {
    /* not remembered */
  }
}

/** Forgets a remembered press (it was honoured on this page). */
export function forgetPress(): void {
  try {
    session()?.removeItem(KEY);
  } catch {
    /* nothing to forget */
  }
}

/** What rememberPress stored, or null when it is not JSON (dropped as no press). */
function parseStored(raw: string): { press?: unknown; at?: unknown; load?: unknown } | null {
  try {
    return JSON.parse(raw) as { press?: unknown; at?: unknown; load?: unknown };
  } catch {
    return null;
  }
}

/**
 * The press a previous load of this tab left for this one, removed as it is read; null when none (or
 * stale). A press this load made itself stays where it is: it waits for the reload.
 */
export function takePress(now = Date.now(), load = THIS_LOAD): Press | null {
  const s = session();
  let raw: string | null = null;
  try {
    raw = s?.getItem(KEY) ?? null;
  } catch {
    return null;
  }
  if (raw === null) return null;
  const v = parseStored(raw);
  if (v?.load === load) return null;
  forgetPress();
  const fresh = typeof v?.at === 'number' && now - v.at >= 0 && now - v.at <= MAX_AGE_MS;
  return fresh && (v?.press === 'start' || v?.press === 'step-once') ? v.press : null;
}
