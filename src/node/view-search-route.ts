/**
 * `GET /search.json?run=<name>&text=…` (src/node/view-server.ts): the query's parameters are those of
 * src/runs/search-wire.ts `searchParams`, plus `limit` (hits kept, 1000 by default, at most 10,000). The
 * answer is NDJSON (src/runs/search-wire.ts SearchLine): a `progress` line at the start and at most every
 * PROGRESS_MS, each kept `hit` in step order, and a last `done` line (or an `error` line). A query the
 * page would refuse (a bad regular expression, a bad parameter) is a 400 with the reason as text. With
 * `histogram=1` the `done` line carries the matches' reward histogram; `finding=KIND` filters by the rows
 * the run's findings of that kind point at (computed, or taken from their cache, by `findings`). When
 * the client goes away, the search stops (src/node/view-search.ts ends its workers).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { findingKinds } from '../runs/findings/types.ts';
import { findingRowsOf } from '../runs/search-query.ts';
import { hitToWire, queryFromParams, type SearchLine } from '../runs/search-wire.ts';
import type { FindingRows } from '../runs/types.ts';
import type { CatalogRun } from './run-catalog.ts';
import { searchServedRun } from './view-search.ts';

/** Progress lines at most this often (the page redraws on each). */
export const PROGRESS_MS = 250;
const MAX_LIMIT = 10_000;

function refuse(res: ServerResponse, status: number, message: string) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end(`${message}\n`);
}

export async function sendSearch(
  req: IncomingMessage,
  res: ServerResponse,
  run: CatalogRun,
  steps: number[] | null,
  params: URLSearchParams,
  findings?: () => Promise<{ kind: string; step: number; rows: number[] }[]>,
): Promise<void> {
  const query = queryFromParams(params);
  if ('error' in query) return refuse(res, 400, query.error);
  if (query.finding !== undefined && !findingKinds.some((k) => k === query.finding))
    return refuse(res, 400, `finding: one of ${findingKinds.join(', ')}`);
  const limitParam = params.get('limit');
  const limit = limitParam === null ? 1000 : Number(limitParam);
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_LIMIT) return refuse(res, 400, `limit: 0 to ${MAX_LIMIT}`);
  if (steps === null) return refuse(res, 404, `${run.name} could not be opened`);
  let findingRows: FindingRows | undefined;
  if (query.finding !== undefined && findings && req.method !== 'HEAD') {
    try {
      findingRows = findingRowsOf(await findings(), query.finding);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      return refuse(res, 500, `finding=${query.finding}: the findings of ${run.name} could not be computed: ${why}`);
    }
  }
  res.setHeader('Cache-Control', 'no-store');
  if (req.method === 'HEAD') {
    res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
    res.end();
    return;
  }
  const abort = new AbortController();
  const onClose = () => abort.abort();
  res.on('close', onClose);
  const line = (l: SearchLine) => {
    if (!res.writableEnded && !res.destroyed) res.write(`${JSON.stringify(l)}\n`);
  };
  let lastProgress = 0;
  let started = false;
  try {
    await searchServedRun(run, steps, query, {
      limit,
      histogram: params.get('histogram') === '1',
      findingRows,
      signal: abort.signal,
      onProgress: (p) => {
        const now = Date.now();
        if (now - lastProgress < PROGRESS_MS) return;
        lastProgress = now;
        line({ type: 'progress', ...p });
      },
      onHit: (hit) => line({ type: 'hit', hit: hitToWire(hit) }),
      onStart: () => {
        started = true;
        res.statusCode = 200;
        res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
        line({ type: 'progress', done: 0, total: steps.length, hits: 0 });
      },
    }).then((r) => {
      line({ type: 'progress', done: r.stepsSearched, total: steps.length, hits: r.count });
      line({
        type: 'done',
        count: r.count,
        stepsSearched: r.stepsSearched,
        cancelled: r.cancelled,
        problems: r.problems ?? [],
        ...(r.histogram && { histogram: r.histogram }),
      });
    });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (!started) return refuse(res, 400, message);
    line({ type: 'error', message });
  } finally {
    res.off('close', onClose);
  }
  res.end();
}
