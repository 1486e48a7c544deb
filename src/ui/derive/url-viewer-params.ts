/**
 * The run viewer's keys of a page URL (src/ui/derive/url-state.ts's one table takes them in): view, step,
 * prompt, finding and the search's f.* filters. Page state, read into the parsed URL's `viewer`; written by
 * viewerToSearch (url-filter.ts) while a run that `rlvr view` serves is open, not from the setup.
 */
import { findingKinds } from '../../runs/findings/types.ts';
import { cleanQuery, FILTER_PREFIX, readFilterParam, type ViewerUrl } from './url-filter.ts';

/** One viewer key: read into `page.viewer` (a note when its text is not acceptable), never written from a setup. */
interface ViewerParam {
  key: string;
  scope: 'page';
  write: () => [];
  read(s: unknown, raw: string, key: string, page: { viewer: ViewerUrl }): string | null;
}

export const viewerParams: ViewerParam[] = [
  {
    key: 'view',
    scope: 'page',
    write: () => [],
    read: (_s, raw, _k, page) => ((page.viewer.name = raw === '' ? null : raw), null),
  },
  {
    key: 'step',
    scope: 'page',
    write: () => [],
    read: (_s, raw, _k, page) => {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 0) return `step=${raw} is not a step number; the run viewer opens the first step`;
      page.viewer.step = n;
      return null;
    },
  },
  { key: 'prompt', scope: 'page', write: () => [], read: (_s, raw, _k, page) => ((page.viewer.prompt = raw), null) },
  {
    key: 'finding',
    scope: 'page',
    write: () => [],
    read: (_s, raw, _k, page) => {
      const kind = findingKinds.find((k) => k === raw);
      if (!kind) return `finding=${raw} is not a kind of finding (${findingKinds.join(', ')}); every kind is listed`;
      page.viewer.finding = kind;
      return null;
    },
  },
  {
    key: FILTER_PREFIX,
    scope: 'page',
    write: () => [],
    read: (_s, raw, key, page) => {
      const filter = { ...page.viewer.filter };
      const note = readFilterParam(key, raw, filter);
      page.viewer.filter = cleanQuery(filter);
      return note;
    },
  },
];
