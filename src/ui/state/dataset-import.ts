/**
 * "Your data": a JSONL file read in the page with the checks the CLI applies (src/tasks/dataset.ts)
 * plus the model's (src/tasks/dataset-load.ts), its line-numbered errors shown, then trained on as the
 * `custom` task. The file's text goes to the worker with the run and is checked there again. A bad file
 * changes nothing: the dataset in use, the setup and the run stay as they were.
 */
import { create } from 'zustand';
import { DatasetError, type DatasetLineError, type VerifierKind } from '../../tasks/dataset.ts';
import { loadTrainingDataset, type DatasetPayload } from '../../tasks/dataset-load.ts';
import { bindCustomFamily } from '../../tasks/registry.ts';
import { checkImportSize } from '../derive/import-limits.ts';
import { readUtf8File } from '../derive/text-import.ts';

export interface DatasetSummary {
  name: string;
  records: number;
  lines: number;
  /** The first errors (line-numbered) and how many there were in all. */
  errors: DatasetLineError[];
  errorCount: number;
  /** A few prompts with their answers, to see the file was read as meant. */
  examples: { line: number; prompt: string; answer: string }[];
  verifier: VerifierKind;
}

export interface DatasetState {
  /** What the next custom-task run trains on (null: none imported). */
  payload: DatasetPayload | null;
  summary: DatasetSummary | null;
  /** Why the last file was refused (the dataset in use, if any, is unchanged). */
  error: string | null;
  loading: boolean;
  /**
   * The dataset the current run was built with (set when a run is initialised or restored; null: none, or not a custom
   * run).
   */
  inRun: DatasetPayload | null;
}

export const useDataset = create<DatasetState>()(() => ({
  payload: null,
  summary: null,
  error: null,
  loading: false,
  inRun: null,
}));

function summarise(p: DatasetPayload): DatasetSummary {
  const { dataset, family } = loadTrainingDataset(p);
  bindCustomFamily(family);
  return {
    name: p.name,
    records: dataset.records.length,
    lines: dataset.lines,
    errors: dataset.errors,
    errorCount: dataset.errorCount,
    examples: dataset.records.slice(0, 3).map((r) => ({ line: r.line, prompt: r.prompt, answer: r.answer })),
    verifier: p.verifier.kind,
  };
}

/** Checks a payload and makes it the dataset in use (the page's custom family too, so the setup form validates). */
export function adoptDataset(p: DatasetPayload): void {
  const summary = summarise(p);
  useDataset.setState({ payload: p, summary, error: null, loading: false });
}

/** Reads a chosen file; false (with the reason in `error`) when it is refused. */
export async function importDatasetFile(file: File, verifier: DatasetPayload['verifier']): Promise<boolean> {
  useDataset.setState({ loading: true, error: null });
  try {
    checkImportSize('dataset', file.name, file.size);
    adoptDataset({ name: file.name, text: await readUtf8File(file, 'a dataset (JSON Lines text)'), verifier });
    return true;
  } catch (e) {
    const why = e instanceof DatasetError || e instanceof Error ? e.message : String(e);
    const kept = useDataset.getState().payload;
    useDataset.setState({
      loading: false,
      error: `${why}. ${kept ? `Still using ${kept.name}.` : 'Nothing was loaded.'}`,
    });
    return false;
  }
}

/** The same file judged by another verifier. */
export function setVerifier(verifier: DatasetPayload['verifier']): void {
  const p = useDataset.getState().payload;
  if (!p) return;
  try {
    adoptDataset({ ...p, verifier });
  } catch (e) {
    useDataset.setState({ error: e instanceof Error ? e.message : String(e) });
  }
}
