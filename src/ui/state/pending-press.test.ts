import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRESS_WAIT_LIMIT_MS, rememberPress, takePress } from './pending-press.ts';

/** A tab's sessionStorage: what survives the service worker's reload of that tab. */
class TabStorage {
  private items = new Map<string, string>();
  getItem(k: string): string | null {
    return this.items.get(k) ?? null;
  }
  setItem(k: string, v: string): void {
    this.items.set(k, v);
  }
  removeItem(k: string): void {
    this.items.delete(k);
  }
}

describe('a press carried across the isolation reload', () => {
  const g = globalThis as { sessionStorage?: unknown };
  beforeEach(() => void (g.sessionStorage = new TabStorage()));
  afterEach(() => void delete g.sessionStorage);

  it('is honoured once, by the reloaded page', () => {
    rememberPress('start', 1_000, 'first load');
    expect(takePress(3_000, 'reloaded')).toBe('start');
    expect(takePress(3_001, 'reloaded')).toBeNull();
  });

  it('is not taken back by the page that made it (its start-up can end before the reload comes)', () => {
    rememberPress('start', 1_000, 'first load');
    expect(takePress(1_500, 'first load')).toBeNull();
    expect(takePress(16_000, 'reloaded')).toBe('start');
  });

  it('survives a slow first install: a press that waited 200 s for the reload is still honoured', () => {
    // The first page waits up to PRESS_WAIT_LIMIT_MS for the worker; a loaded machine or a school's
    // network can take minutes to download the precache before the reload comes.
    rememberPress('step-once', 0, 'first load');
    expect(takePress(200_000, 'reloaded')).toBe('step-once');
  });

  it('is dropped when it outlived every wait (the reload it waited for never came)', () => {
    rememberPress('start', 0, 'first load');
    expect(takePress(PRESS_WAIT_LIMIT_MS + 120_000, 'reloaded')).toBeNull();
  });

  it('ignores what is not a press', () => {
    (g.sessionStorage as TabStorage).setItem('rlvr.pendingPress', '{"press":"delete-all","at":0}');
    expect(takePress(1)).toBeNull();
    (g.sessionStorage as TabStorage).setItem('rlvr.pendingPress', 'not json');
    expect(takePress(1)).toBeNull();
  });
});
