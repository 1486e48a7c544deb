/**
 * The search of a run `rlvr view` serves, done by the server near the files (`GET /search.json`,
 * src/node/view-search-route.ts) instead of fetching every step file into the page's run reader: the
 * same query, hits, count, progress and cancel as the page's own search (src/runs/opened-run.ts),
 * which a folder opened in the page still uses.
 */
import { hitFromWire, type SearchLine, searchParams } from '../../runs/search-wire.ts';
import type { RunQuery, RunSearchHit, RunSearchOptions, RunSearchResult } from '../../runs/types.ts';

/** Lines of an NDJSON body as they arrive. */
async function* ndjson(body: ReadableStream<Uint8Array>): AsyncGenerator<SearchLine> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  for (;;) {
    const { done, value } = await reader.read();
    rest += done ? decoder.decode() : decoder.decode(value, { stream: true });
    const lines = rest.split('\n');
    rest = lines.pop()!;
    for (const l of lines) if (l.trim() !== '') yield JSON.parse(l) as SearchLine;
    if (done) return;
  }
}

/** Searches run `name` on the server whose page this is (`base`: its address, as `document.baseURI`). */
export async function servedSearch(
  base: string,
  name: string,
  query: RunQuery,
  options: RunSearchOptions = {},
): Promise<RunSearchResult> {
  const { signal, onProgress, limit } = options;
  const hits: RunSearchHit[] = [];
  let progress = { done: 0, total: 0, hits: 0 };
  const cancelled = (): RunSearchResult => ({
    hits,
    count: progress.hits,
    stepsSearched: progress.done,
    cancelled: true,
  });
  if (signal?.aborted) return cancelled();
  const params = new URLSearchParams(searchParams(name, query, limit));
  if (options.histogram) params.set('histogram', '1');
  const url = new URL(`search.json?${params}`, base);
  try {
    const res = await fetch(url, { signal, cache: 'no-store' });
    if (!res.ok || !res.body) throw new Error((await res.text()).trim() || `the server answered ${res.status}`);
    for await (const line of ndjson(res.body)) {
      if (line.type === 'progress') {
        progress = { done: line.done, total: line.total, hits: line.hits };
        onProgress?.(progress);
      } else if (line.type === 'hit') hits.push(hitFromWire(line.hit));
      else if (line.type === 'error') throw new Error(line.message);
      else {
        const { count, stepsSearched, cancelled, problems, histogram } = line;
        return { hits, count, stepsSearched, cancelled, problems: problems ?? [], ...(histogram && { histogram }) };
      }
    }
    throw new Error('the server stopped before the search was done');
  } catch (e) {
    if (signal?.aborted) return cancelled();
    throw e;
  }
}
