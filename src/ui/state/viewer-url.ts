/**
 * The run viewer's place in the address: the link to the open served run (its step, followed prompt, finding kind
 * and search), and the address bar kept on it. A folder opened in the page has no link: its files are the page's.
 */
import { setupToSearch, viewerToSearch } from '../derive/url-state.ts';
import { selectedManifest } from './setup-state.ts';
import { getState, useApp, type AppState } from './store.ts';
import type { ViewerState } from './viewer-state.ts';

/** The link to the open served run, its step and followed prompt (null for a folder opened in the page). */
export function viewerLink(v: ViewerState = getState().viewer, href = location.href): string | null {
  const run = v.runs.find((r) => r.key === v.open);
  if (run?.origin !== 'server') return null;
  const url = new URL(href);
  const place = { name: run.name, step: v.step, prompt: v.prompt, finding: v.findingKind ?? undefined };
  url.search = viewerToSearch({ ...place, filter: v.applied ?? undefined });
  url.hash = '';
  return url.href;
}

/** The open served run's place in the address bar (`view=…&step=…&prompt=…`), empty for none. */
export function viewerPlace(s: AppState): string {
  const run = s.viewer.runs.find((r) => r.key === s.viewer.open);
  if (run?.origin !== 'server') return '';
  const finding = s.viewer.findingKind ?? undefined;
  const filter = s.viewer.applied ?? undefined;
  return viewerToSearch({ name: run.name, step: s.viewer.step, prompt: s.viewer.prompt, finding, filter });
}

/** Keeps the address bar on the open served run's place, beside the setup's own keys (as boot.ts writes them). */
export function syncViewerUrl(): () => void {
  return useApp.subscribe((s, prev) => {
    const v = s.viewer;
    const p = prev.viewer;
    const same =
      v.open === p.open &&
      v.step === p.step &&
      v.prompt === p.prompt &&
      v.findingKind === p.findingKind &&
      v.applied === p.applied;
    if (v === p || (same && v.runs === p.runs)) return;
    const q = [setupToSearch(s.setup, selectedManifest(s)), viewerPlace(s)].filter(Boolean).join('&');
    if (q !== location.search.replace(/^\?/, '')) {
      history.replaceState(null, '', `${location.pathname}${q ? `?${q}` : ''}${location.hash}`);
    }
  });
}
