/**
 * TRL's GRPOTrainer `output_dir`, as TRL 1.13 writes it (trl/trainer/grpo_trainer.py, `log`): with
 * `log_completions=True`, each logging step writes `completions/completions_{global_step:05d}.parquet`
 * (pandas `to_parquet`) with the columns `step` (global_step, the same on every row), `prompt` and
 * `completion` (decoded text), one float column per reward function named after it (NaN where it returned
 * None), the columns of `log_extra`, and `advantage`. Rows come num_generations at a time per prompt.
 * The curves are `log_history` in the newest `checkpoint-N/trainer_state.json` (or a top-level one).
 *
 * Indexing reads only each parquet's footer (through range reads); a step's rows are read when asked.
 */
import {
  parquetMetadataAsync,
  parquetReadObjects,
  parquetSchema,
  type AsyncBuffer,
  type FileMetaData,
} from 'hyparquet';
import { asText, readRange, RunReadError, toNumber, why } from './files.ts';
import { nearestStep } from './nearest-step.ts';
import { missingSteps, type RunSource, type StepRows } from './opened-run.ts';
import { parquetCompressors } from './parquet-codecs.ts';
import { countTrlTextRows } from './trl-count.ts';
import { readTrainerState, type TrainerState } from './trl-state.ts';
import { WHOLE_FILE_BYTES, wholeFiles } from './whole-files.ts';
import type { RunCompletion, RunFileEntry, RunFiles, RunIndex, RunProblem, RunQuery } from './types.ts';

export const trlCompletionFile = /^completions\/completions_(\d+)\.parquet$/;
const checkpointState = /^checkpoint-(\d+)\/trainer_state\.json$/;
const coreColumns = new Set(['step', 'prompt', 'completion', 'advantage']);
const numericTypes = new Set(['DOUBLE', 'FLOAT', 'INT32', 'INT64', 'BOOLEAN']);
const expected = "TRL's completions table (columns step, prompt, completion, one per reward function, advantage)";

/** An AsyncBuffer (hyparquet's file) over RunFiles range reads. */
export function runFileBuffer(files: RunFiles, path: string, size: number): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end?: number): Promise<ArrayBuffer> {
      const bytes = await readRange(files, path, start, end ?? size);
      if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer)
        return bytes.buffer;
      return bytes.slice().buffer;
    },
  };
}

interface ParquetFile {
  path: string;
  size: number;
  step: number;
  /** Whether its footer was read; until then only its name and size are known. */
  read: boolean;
  metadata: FileMetaData | null;
  columns: string[];
  numeric: Set<string>;
  problems: RunProblem[];
}

const unread = (entry: RunFileEntry, step: number): ParquetFile => ({
  path: entry.path,
  size: entry.size,
  step,
  read: false,
  metadata: null,
  columns: [],
  numeric: new Set(),
  problems: [],
});

/** The columns a step is read with: every one but `step` (the file's name says the step; the rows never use it). */
const stepColumns = (p: ParquetFile) => p.columns.filter((c) => c !== 'step');

/** An AsyncBuffer over bytes already read. */
const bytesBuffer = (bytes: Uint8Array): AsyncBuffer => ({
  byteLength: bytes.length,
  slice: (start, end) => bytes.slice(start, end).buffer,
});

/** Reads a parquet file's footer (from `file`) and checks its columns; problems name the file. */
async function indexParquet(entry: RunFileEntry, step: number, file: AsyncBuffer): Promise<ParquetFile> {
  const out: ParquetFile = {
    path: entry.path,
    size: entry.size,
    step,
    read: true,
    metadata: null,
    columns: [],
    numeric: new Set(),
    problems: [],
  };
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(file, { initialFetchSize: 1 << 14, geoparquet: false });
  } catch (e) {
    const message =
      e instanceof RunReadError
        ? e.message
        : `${entry.path}: not a readable parquet file (${why(e)}); expected ${expected}, ending in the parquet ` +
          `footer "PAR1" (a truncated file, or one still being written, lacks it)`;
    out.problems.push({ file: entry.path, message });
    return out;
  }
  const top = parquetSchema(metadata).children;
  out.columns = top.map((c) => c.element.name);
  for (const c of top)
    if (c.children.length === 0 && c.element.type && numericTypes.has(c.element.type)) out.numeric.add(c.element.name);
  const missing = ['prompt', 'completion'].filter((c) => !out.columns.includes(c));
  if (missing.length) {
    out.problems.push({
      file: entry.path,
      message:
        `${entry.path}: has no column ${missing.map((m) => `"${m}"`).join(' or ')} (it has ` +
        `${out.columns.join(', ') || 'none'}); expected ${expected}`,
    });
    return out;
  }
  // A column chunk that names no column of the schema is a corrupt footer; hyparquet would read such a chunk
  // and leave its failure unobserved (an unhandled rejection), so the file is refused here instead.
  const names = new Set(out.columns);
  const stray = metadata.row_groups.some((g) =>
    g.columns.some((c) => !c.meta_data || !names.has(c.meta_data.path_in_schema[0] ?? '')),
  );
  if (stray) {
    out.problems.push({
      file: entry.path,
      message:
        `${entry.path}: its footer is corrupt (a column chunk names no column of its schema); expected ` +
        `${expected}`,
    });
    return out;
  }
  // A column chunk whose bytes are not inside the file (a negative or oversized length, an offset past the end) is a
  // corrupt footer too: hyparquet reads such a chunk alone as no values, and beside its neighbours from their bytes.
  const outside = metadata.row_groups
    .flatMap((g) => g.columns)
    .find((c) => {
      const m = c.meta_data!;
      const start = Number(m.dictionary_page_offset ?? m.data_page_offset);
      const length = Number(m.total_compressed_size);
      return !(start >= 4 && length > 0 && start + length <= file.byteLength);
    });
  if (outside) {
    const m = outside.meta_data!;
    const start = Number(m.dictionary_page_offset ?? m.data_page_offset);
    out.problems.push({
      file: entry.path,
      message:
        `${entry.path}: its footer is corrupt (column "${m.path_in_schema.join('.')}" is said to take ` +
        `${Number(m.total_compressed_size)} bytes from byte ${start} of a ${file.byteLength}-byte file); ` +
        `expected ${expected}`,
    });
    return out;
  }
  out.metadata = metadata;
  // pandas writes min/max statistics: the step column checks the file name without reading a row.
  const stepIndex = out.columns.indexOf('step');
  const stats = stepIndex >= 0 ? metadata.row_groups[0]?.columns[stepIndex]?.meta_data?.statistics : undefined;
  const min = toNumber(stats?.min_value);
  if (min !== undefined && min !== step) {
    out.problems.push({
      file: entry.path,
      message: `${entry.path}: its step column says ${min} but its name says step ${step}; read as step ${step}`,
    });
  }
  return out;
}

/**
 * The TRL reader over a run's own folder (`files` is the output_dir). With `firstStep` (opened-run.ts
 * OpenOptions), the first index asks for the nearest step's file as soon as the files are listed.
 */
export function trlSource(files: RunFiles, name: string, firstStep?: number): RunSource {
  const parquets = new Map<string, ParquetFile>();
  const whole = wholeFiles(files);
  let early = firstStep;
  let state: TrainerState | null = null;
  const stateCache = new Map<string, { state: TrainerState | null; problems: RunProblem[] }>();
  let byStep = new Map<number, ParquetFile>();
  let rewardNames: string[] = [];

  async function index(): Promise<RunIndex> {
    const listed = await files.list();
    const problems: RunProblem[] = [];
    // The curves: the newest checkpoint's trainer_state.json, or the top-level one when it is newer.
    const states = listed.filter((f) => checkpointState.test(f.path) || f.path === 'trainer_state.json');
    const newest = states
      .filter((f) => f.path !== 'trainer_state.json')
      .sort((a, b) => Number(checkpointState.exec(b.path)![1]) - Number(checkpointState.exec(a.path)![1]));
    const candidates = [newest[0], states.find((f) => f.path === 'trainer_state.json')].filter(
      (f): f is RunFileEntry => f !== undefined,
    );
    // The completions: known by name and size. Footers are read for the first and the newest file only (the
    // columns, and whether the newest is whole yet: TRL may be writing it); the others' when their step is read.
    const found = listed.filter((f) => trlCompletionFile.test(f.path));
    const stepOf = (f: RunFileEntry) => Number(trlCompletionFile.exec(f.path)![1]);
    found.sort((a, b) => stepOf(a) - stepOf(b) || a.path.localeCompare(b.path));
    for (const f of found) {
      const known = parquets.get(f.path);
      if (!known || known.size !== f.size) parquets.set(f.path, unread(f, stepOf(f)));
    }
    const first = early === undefined ? undefined : nearestStep(found.map(stepOf), early);
    early = undefined;
    if (first !== undefined) whole.prefetch(found.filter((f) => stepOf(f) === first).slice(0, 1));
    // The trainer states and the two footers are read at once: over HTTP each is a request, and a link's
    // first view waits for them all (docs/viewer.md, "Measured").
    const footers = Promise.all(
      [...new Set([found[0], found[found.length - 1]])].map(async (f) => {
        if (f && !parquets.get(f.path)!.read)
          parquets.set(f.path, await indexParquet(f, stepOf(f), runFileBuffer(files, f.path, f.size)));
      }),
    );
    await Promise.all(
      candidates.map(async (c) => {
        const key = `${c.path}\u0000${c.size}`;
        if (stateCache.has(key)) return;
        const found: RunProblem[] = [];
        stateCache.set(key, { state: await readTrainerState(files, c, found), problems: found });
      }),
    );
    state = null;
    for (const c of candidates) {
      const s = stateCache.get(`${c.path}\u0000${c.size}`)!;
      problems.push(...s.problems);
      if (s.state && (!state || s.state.globalStep > state.globalStep)) state = s.state;
    }
    await footers;
    byStep = new Map();
    for (const f of found) {
      const p = parquets.get(f.path)!;
      problems.push(...p.problems);
      if (p.read && !p.metadata) continue;
      const other = byStep.get(p.step);
      if (other) {
        problems.push({
          file: p.path,
          message:
            `${p.path}: step ${p.step} again (${other.path} has it too); ${other.path} was read, this ` +
            `file skipped`,
        });
        continue;
      }
      byStep.set(p.step, p);
    }
    const steps = [...byStep.keys()].sort((a, b) => a - b);
    for (const s of missingSteps(steps)) {
      const file = `completions/completions_${String(s).padStart(5, '0')}.parquet`;
      problems.push({
        file,
        message: `${file} is missing: no completions for step ${s}, between the steps before and after it`,
      });
    }
    // Reward columns: the names TRL logged as rewards/<name>/mean, else every numeric column but step and advantage.
    const numeric = [...byStep.values()].flatMap((p) =>
      p.columns.filter((c) => p.numeric.has(c) && !coreColumns.has(c)),
    );
    const logged = state?.rewardNames ?? [];
    rewardNames = logged.length ? logged.filter((n) => numeric.includes(n)) : [...new Set(numeric)];
    const notes = [
      "The total reward is the plain sum of the reward columns: TRL's reward_weights are not saved in " +
        "output_dir in a readable form; the advantage is TRL's own.",
    ];
    if (!logged.length)
      notes.push('No trainer_state.json with rewards/<name>/mean: every numeric column is taken as a reward function.');
    return { name, format: 'trl', steps, metrics: state?.points ?? [], rewardNames, problems, notes };
  }

  const prefetch = (steps: number[]): void =>
    whole.prefetch(steps.map((s) => byStep.get(s)).filter((p): p is ParquetFile => !!p));

  /** A step's file and its footer (read now where it was not yet). */
  async function stepFile(step: number): Promise<{ p: ParquetFile; file: AsyncBuffer; metadata: FileMetaData }> {
    let p = byStep.get(step);
    if (!p) throw new RunReadError(name, `${name}: no completions file for step ${step}`);
    // A small file (TRL's are tens of kB a step) is read in one request, footer and rows together.
    const file =
      p.size <= WHOLE_FILE_BYTES ? bytesBuffer(await whole.read(p.path)) : runFileBuffer(files, p.path, p.size);
    if (!p.read) {
      p = await indexParquet(p, step, file);
      parquets.set(p.path, p);
      byStep.set(step, p);
    }
    if (!p.metadata) throw new RunReadError(p.path, p.problems[0]?.message ?? `${p.path}: not readable`);
    return { p, file, metadata: p.metadata };
  }

  async function readRows(step: number): Promise<StepRows> {
    return rowsOf(await stepFile(step));
  }

  async function countText(step: number, query: RunQuery): Promise<number | StepRows> {
    const read = await stepFile(step);
    // A file with problems of its own is read whole, so that the search reports them as it always did.
    if (read.p.problems.length === 0) {
      const count = await countTrlTextRows(read.file, read.metadata, stepColumns(read.p), query).catch(() => null);
      if (count !== null) return count;
    }
    return rowsOf(read);
  }

  async function rowsOf(read: { p: ParquetFile; file: AsyncBuffer; metadata: FileMetaData }): Promise<StepRows> {
    const { p, file, metadata } = read;
    let rows: Record<string, unknown>[];
    try {
      // Snappy in WebAssembly (parquet-codecs.ts).
      rows = await parquetReadObjects({
        file,
        metadata,
        rowFormat: 'object',
        columns: stepColumns(p),
        compressors: parquetCompressors(),
      });
    } catch (e) {
      throw e instanceof RunReadError
        ? e
        : new RunReadError(
            p.path,
            `${p.path}: its rows could not be read (${why(e)}); the file is truncated or corrupt`,
          );
    }
    const path = p.path;
    const columns = p.columns;
    const problems: RunProblem[] = [...p.problems];
    const out: RunCompletion[] = [];
    const names = rewardNames.filter((n) => columns.includes(n));
    rows.forEach((r, row) => {
      if (typeof r.completion !== 'string' && !Array.isArray(r.completion)) {
        problems.push({
          file: path,
          row,
          message:
            `${path} row ${row}: the completion is ${r.completion === null ? 'null' : typeof r.completion}; ` +
            'expected text',
        });
        return;
      }
      const rewards: Record<string, number> = {};
      for (const n of names) rewards[n] = toNumber(r[n]) ?? Number.NaN;
      const finite = Object.values(rewards).filter((v) => !Number.isNaN(v));
      const completion = asText(r.completion);
      const extra: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r))
        if (!coreColumns.has(k) && !names.includes(k)) extra[k] = typeof v === 'bigint' ? Number(v) : v;
      const advantage = toNumber(r.advantage);
      out.push({
        row,
        prompt: asText(r.prompt),
        completion,
        rewards,
        // nansum as TRL does; NaN when every function returned None (TRL's unscorable row).
        reward: finite.length ? finite.reduce((a, b) => a + b, 0) : Number.NaN,
        ...(advantage !== undefined ? { advantage } : {}),
        length: completion.length,
        lengthUnit: 'chars',
        extra,
      });
    });
    return { rows: out, problems };
  }

  return { index, readRows, prefetch, countText };
}
