/**
 * Trackio's traces, as trackio/sqlite_storage.py writes them: one SQLite file per project,
 * `{project}.db`, whose `traces` table (`init_db`) holds a row per trackio.Trace logged
 * (`_split_trace_metrics`, `_insert_trace_rows`): id, run_id, timestamp, run_name, step, key,
 * trace_index, messages (orjson bytes of OpenAI-style [{role, content}], a BLOB), metadata (orjson bytes
 * of the dict the user gave), search_text, log_id, space_id. A list logged under one key (`trace_index`
 * 0, 1, ...) at one step is one group. The completion is the last assistant message, the prompt the
 * messages before it; the metadata's numbers are the rewards (its `reward` the total where given, else
 * their sum; its `advantage` the advantage). The `metrics` table gives the curves. Read with sqlite.ts,
 * the main file only: writes still in `{project}.db-wal` are not seen until Trackio checkpoints them.
 */
import { asText, isRecord, RunReadError, toNumber, utf8 as strictUtf8, why } from './files.ts';
import type { RunSource, StepRows } from './opened-run.ts';
import { type CellAt, isSqliteHeader, type SqlValue, SqliteFile, type SqlTable } from './sqlite.ts';
import type { MetricPoint, RunCompletion, RunFileEntry, RunFiles, RunIndex, RunProblem } from './types.ts';

const traceColumns = ['id', 'run_name', 'step', 'key', 'trace_index', 'messages', 'metadata'];

/** Whether a `.db` file is a SQLite database with Trackio's traces table. */
export async function isTrackioFile(files: RunFiles, f: RunFileEntry, problems: RunProblem[]): Promise<boolean> {
  if (f.size < 100) return false;
  try {
    const head = await files.read(f.path, 0, 16);
    if (!isSqliteHeader(head)) return false;
    const db = await SqliteFile.open(files, f.path);
    const traces = (await db.tables()).find((t) => t.name === 'traces');
    return !!traces && traceColumns.every((c) => traces.columns.includes(c));
  } catch (e) {
    problems.push({ file: f.path, message: `${f.path}: a SQLite file that could not be read (${why(e)})` });
    return false;
  }
}

/** A JSON column: orjson's bytes (a BLOB) or text. */
function json(v: SqlValue): unknown {
  const text = typeof v === 'string' ? v : v instanceof Uint8Array ? strictUtf8(v) : null;
  if (text === null) throw new Error('not UTF-8 JSON');
  return JSON.parse(text);
}

function traceCompletion(messages: unknown, metadata: unknown): Omit<RunCompletion, 'row'> | string {
  if (!Array.isArray(messages) || !messages.every(isRecord)) return '"messages" is not a list of messages';
  const meta = isRecord(metadata) ? metadata : {};
  let last = -1;
  for (let i = messages.length - 1; i >= 0 && last < 0; i--) if (messages[i]!.role === 'assistant') last = i;
  const rewards: Record<string, number> = {};
  for (const [k, v] of Object.entries(meta)) {
    const n = typeof v === 'number' || typeof v === 'boolean' ? toNumber(v) : undefined;
    if (n !== undefined && k !== 'advantage' && k !== 'reward') rewards[k] = n;
  }
  const total = toNumber(meta.reward);
  if (total !== undefined && Object.keys(rewards).length === 0) rewards.reward = total;
  const reward = total ?? Object.values(rewards).reduce((a, b) => a + b, 0);
  const completion = last < 0 ? '' : asText(messages[last]!.content);
  const advantage = toNumber(meta.advantage);
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta)) if (!(k in rewards) && k !== 'reward' && k !== 'advantage') extra[k] = v;
  return {
    prompt: asText(last < 0 ? messages : messages.slice(0, last)),
    completion,
    rewards,
    reward,
    ...(advantage !== undefined ? { advantage } : {}),
    length: completion.length,
    lengthUnit: 'chars',
    extra,
  };
}

export function trackioSource(files: RunFiles, path: string, name: string): RunSource {
  let byStep = new Map<number, { at: CellAt; order: [string, string, number, number] }[]>();
  let db: { file: SqliteFile; traces: SqlTable } | null = null;
  const rewardNames: string[] = [];
  const col = (t: SqlTable, values: SqlValue[], c: string) => values[t.columns.indexOf(c)] ?? null;

  async function index(): Promise<RunIndex> {
    const problems: RunProblem[] = [];
    const notes = [
      "Trackio: the rewards are the numbers in each trace's metadata; a list logged under one key is a group.",
    ];
    const listed = await files.list();
    if (listed.some((f) => f.path === `${path}-wal` && f.size > 0))
      notes.push(`${path}-wal holds writes Trackio has not yet checkpointed into ${path}; they are not shown yet.`);
    const file = await SqliteFile.open(files, path);
    const tables = await file.tables();
    const traces = tables.find((t) => t.name === 'traces');
    if (!traces)
      throw new RunReadError(path, `${path}: no traces table; expected Trackio's (trackio/sqlite_storage.py)`);
    db = { file, traces };
    const next = new Map<number, { at: CellAt; order: [string, string, number, number] }[]>();
    const runs = new Set<string>();
    for (const at of await file.cells(traces.rootPage)) {
      const { rowid, values } = await file.row(at);
      const step = col(traces, values, 'step');
      const run = String(col(traces, values, 'run_name') ?? '');
      runs.add(run);
      if (typeof step !== 'number') {
        problems.push({ file: path, row: rowid, message: `${path} traces row ${rowid}: "step" is not a whole number` });
        continue;
      }
      const key = String(col(traces, values, 'key') ?? '');
      const index = toNumber(col(traces, values, 'trace_index')) ?? -1;
      next.set(step, [...(next.get(step) ?? []), { at, order: [run, key, index, rowid] }]);
    }
    for (const list of next.values())
      list.sort(
        (a, b) =>
          a.order[0].localeCompare(b.order[0]) ||
          a.order[1].localeCompare(b.order[1]) ||
          a.order[2] - b.order[2] ||
          a.order[3] - b.order[3],
      );
    byStep = next;
    if (runs.size > 1)
      notes.push(`Trackio: ${runs.size} runs' traces (${[...runs].join(', ')}), each step's grouped by run.`);
    const metrics = await metricsOf(
      file,
      tables.find((t) => t.name === 'metrics'),
      problems,
    );
    const steps = [...byStep.keys()].sort((a, b) => a - b);
    return { name, format: 'trackio', steps, metrics, rewardNames, problems, notes };
  }

  async function metricsOf(file: SqliteFile, t: SqlTable | undefined, problems: RunProblem[]): Promise<MetricPoint[]> {
    if (!t) return [];
    const points = new Map<number, Record<string, number>>();
    for (const at of await file.cells(t.rootPage)) {
      const { rowid, values } = await file.row(at);
      const step = col(t, values, 'step');
      try {
        const m = json(col(t, values, 'metrics'));
        if (typeof step !== 'number' || !isRecord(m)) throw new Error('expected a step and a JSON object');
        const into = points.get(step) ?? {};
        for (const [k, v] of Object.entries(m)) if (typeof v === 'number') into[k] = v;
        points.set(step, into);
      } catch (e) {
        problems.push({ file: path, row: rowid, message: `${path} metrics row ${rowid}: ${why(e)}` });
      }
    }
    return [...points.entries()].sort((a, b) => a[0] - b[0]).map(([step, values]) => ({ step, values }));
  }

  async function readRows(step: number): Promise<StepRows> {
    const list = byStep.get(step);
    if (!list || !db) throw new RunReadError(path, `${path}: no traces at step ${step}`);
    const rows: RunCompletion[] = [];
    const groupOf: number[] = [];
    const problems: RunProblem[] = [];
    const groups = new Map<string, number>();
    for (const { at, order } of list) {
      const { rowid, values } = await db.file.row(at);
      let c: Omit<RunCompletion, 'row'> | string;
      try {
        c = traceCompletion(json(col(db.traces, values, 'messages')), json(col(db.traces, values, 'metadata')));
      } catch (e) {
        c = `"messages" or "metadata" is not JSON (${why(e)})`;
      }
      if (typeof c === 'string') {
        problems.push({
          file: path,
          row: rowid,
          message: `${path} traces row ${rowid}: ${c}; expected Trackio's trace`,
        });
        continue;
      }
      for (const k of Object.keys(c.rewards)) if (!rewardNames.includes(k)) rewardNames.push(k);
      const g = `${order[0]}\u0000${order[1]}`;
      if (!groups.has(g)) groups.set(g, groups.size);
      groupOf.push(groups.get(g)!);
      rows.push({ ...c, row: rows.length, extra: { ...c.extra, run: order[0], key: order[1] } });
    }
    return { rows, groupOf, problems };
  }

  return { index, readRows };
}
