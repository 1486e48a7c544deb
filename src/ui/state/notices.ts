/**
 * Reliability notices (docs/reliability.md), in their own small store so the main store stays as it is: autosave
 * turned off (storage full or unavailable), skipped non-finite steps and the pause after three, the
 * fallback to WASM after a lost WebGPU device, and the autosave interval. Banners.tsx shows them;
 * controller.ts sets them.
 */
import { create } from 'zustand';

/**
 * Default: autosave after every step (as the worker's throttle allows: workers/run-saver.ts), and
 * whenever training pauses or ends.
 */
export const DEFAULT_AUTOSAVE_EVERY = 1;
const AUTOSAVE_KEY = 'rlvr.autosaveEvery';

export interface Notices {
  /** Why autosave is off (null: it is on). The run goes on without it. */
  autosaveOff: string | null;
  /** Autosave every N steps (0: only when training pauses or ends); kept in localStorage. */
  autosaveEvery: number;
  /** The last step skipped because its loss or gradient was not finite, and the streak it ended. */
  skipped: { step: number; streak: number } | null;
  /** The loop paused itself after too many non-finite steps: the worker's explanation and what it ran with. */
  nonFinite: { message: string; learningRate: number; maxGradNorm: number } | null;
  /** What happened after a lost WebGPU device (resumed on WASM from an autosave, or started over). */
  fallback: string | null;
  /**
   * What a reload (or Restore) brought back: the step, and the steps lost if the page had shown more (persist.ts
   * restoredNote).
   */
  restored: string | null;
  /** The restored run was training when the page went away: Resume takes the focus (Enter goes on). */
  restoredWhileTraining: boolean;
  /** The last checkpoint download's or Hugging Face export's warning (its LoRA adapters are all zero), or null. */
  exportWarning: string | null;
}

function storedAutosaveEvery(): number {
  try {
    const raw = globalThis.localStorage?.getItem(AUTOSAVE_KEY);
    const n = raw === null || raw === undefined ? NaN : Number(raw);
    return Number.isInteger(n) && n >= 0 && n <= 100_000 ? n : DEFAULT_AUTOSAVE_EVERY;
  } catch {
    return DEFAULT_AUTOSAVE_EVERY; // storage blocked (private mode, sandboxed frame)
  }
}

export const useNotices = create<Notices>()(() => ({
  autosaveOff: null,
  autosaveEvery: storedAutosaveEvery(),
  skipped: null,
  nonFinite: null,
  fallback: null,
  restored: null,
  restoredWhileTraining: false,
  exportWarning: null,
}));

export const notices = useNotices.getState;
export const setNotices = useNotices.setState;

/** Sets the autosave interval (an integer 0..100000; 0 = only on pause/end) and remembers it in this browser. */
export function setAutosaveEvery(n: number): void {
  if (!Number.isInteger(n) || n < 0 || n > 100_000)
    throw new Error(`autosave interval must be a whole number of steps (0 to 100000), got ${n}`);
  setNotices({ autosaveEvery: n });
  try {
    globalThis.localStorage?.setItem(AUTOSAVE_KEY, String(n));
  } catch {
    /* not remembered; still used for this page */
  }
}

/** A person-readable reason why storing the run failed: full storage, or storage not available at all. */
export function describeStorageError(e: unknown): string {
  const name = (e as { name?: string } | null)?.name ?? '';
  const msg = e instanceof Error ? e.message : String(e);
  if (name === 'QuotaExceededError' || /quota|full|space/i.test(msg)) return `the browser's storage is full (${msg})`;
  return `browser storage is unavailable here, e.g. in a private window (${msg})`;
}
