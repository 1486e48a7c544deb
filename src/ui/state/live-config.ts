/**
 * Live config changes: the setup's edits that can apply between steps go to the running run at once
 * (through the one resolver, resolveLiveEdit); the others are listed as needing a new run.
 */
import { session } from './session.ts';
import type { RunConfig } from '../../rl/config.ts';
import { resolveLiveEdit } from '../../rl/resolve-config.ts';
import type { UpdateResult } from '../../../workers/protocol.ts';
import { autosave } from './autosave.ts';
import { message } from './errors.ts';
import { sourceKey } from './run-load.ts';
import { effectiveDraftConfig } from './setup-state.ts';
import { getState, hasRun, patch, setState, type RunControl } from './store.ts';
import { client } from './worker-link.ts';

const setControl = (c: Partial<RunControl>) => patch('runControl', c);

/** Sends the draft's changes that can apply between steps; lists those that need a reset. */
export async function syncLiveConfig(): Promise<void> {
  const s = getState();
  const running = s.run.config;
  setControl({ syncOwed: !!running && !hasRun() });
  if (!running || !hasRun()) return;
  const next = effectiveDraftConfig(s);
  if (!next) return;
  // The same resolution and restart rule the worker applies (Trainer.updateConfig): resolveLiveEdit.
  const edit = resolveLiveEdit(running, next as unknown as Record<string, unknown>);
  const blocked: string[] = [...edit.restart];
  const built = s.runControl.sourceKey;
  if (built && sourceKey(s) !== built) blocked.push('base checkpoint');
  const live = edit.live;
  let pending = blocked.length
    ? {
        field: blocked.join(', '),
        reason:
          'takes effect in a new run (it changes the compiled ' +
          'graphs, the prompt stream or the model): press ' +
          'Reset, then Start',
      }
    : null;
  let note: string | null = s.liveNote;
  if (live.length) {
    const p = Object.fromEntries(live.map((k) => [k, next[k]])) as Partial<RunConfig>;
    try {
      const r = await client().call((a) => a.updateConfig(p) as Promise<UpdateResult>);
      if (r.ok) {
        patch('run', { config: r.config });
        note = r.changed.length ? `applied live from step ${getState().run.step}: ${r.changed.join(', ')}` : note;
      } else
        pending = {
          field: r.field,
          reason: r.reason.startsWith(`${r.field}: `) ? r.reason.slice(r.field.length + 2) : r.reason,
        }; // shown as `field: reason`
    } catch (e) {
      pending = { field: live.join(', '), reason: message(e) };
    }
  }
  setState({ pendingRestart: pending, liveNote: note });
  // The autosave follows the setup (and the live config) so a reload restores what the URL says.
  void autosave();
}

export function scheduleSync(): void {
  if (session.syncTimer) clearTimeout(session.syncTimer);
  session.syncTimer = setTimeout(() => void syncLiveConfig(), 300);
}
