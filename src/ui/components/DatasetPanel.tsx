import { useState } from 'react';
import { VERIFIER_KINDS, type VerifierKind } from '../../tasks/dataset.ts';
import { datasetTrainLabel, runTrainsOnDataset, trainOnDataset } from '../state/dataset-actions.ts';
import { importDatasetFile, setVerifier, useDataset } from '../state/dataset-import.ts';
import { IMPORT_LIMITS, formatBytes } from '../derive/import-limits.ts';
import { useApp } from '../state/store.ts';

const VERIFIER_HELP: Record<VerifierKind, string> = {
  exact: 'the answer must equal "answer" (spaces collapsed)',
  numeric: 'a number within tolerance of "answer" (decimals, 1e3, 3/4, 1,000.5)',
  regex: 'the answer must match the line\'s "pattern" (or "answer" read as a pattern)',
};

/** Your own data: import a JSONL file of {"prompt", "answer"} lines, see what was read, train on it. */
export default function DatasetPanel() {
  const d = useDataset();
  const steps = useApp((s) => s.run.step);
  const runExists = useApp(
    (s) => s.run.config !== null && s.run.state !== 'idle' && s.run.state !== 'crashed' && s.run.state !== 'loading',
  );
  const [kind, setKind] = useState<VerifierKind>(d.summary?.verifier ?? 'exact');
  const [note, setNote] = useState<string | null>(null);
  const s = d.summary;
  // A link (or config) that names a dataset this tab has not imported: say which file to import.
  const wanted = useApp((st) => (st.setup.draft.task === 'custom' ? (st.setup.dataset ?? null) : null));
  return (
    <div className="dataset">
      {wanted && d.payload?.name !== wanted && (
        <p className="banner warn" role="status" data-testid="dataset-wanted">
          This experiment trains on <strong>{wanted}</strong>. A link carries the dataset&apos;s name, not its lines:
          import {wanted} below{d.payload ? ` (now loaded: ${d.payload.name})` : ''}. Save config (Keep &amp; share)
          embeds the lines in the file it downloads.
        </p>
      )}
      <p>
        One JSON object per line: <code>{'{"prompt": "2+2=", "answer": "4"}'}</code>, optionally with{' '}
        <code>"pattern"</code> for the regex verifier. The same format and checks as{' '}
        <code>rlvr sample --task custom --dataset FILE.jsonl</code> (docs/tasks.md), plus the model's: printable ASCII
        only, and prompts that fit its context. Bad lines are listed by line number and skipped. Up to{' '}
        {formatBytes(IMPORT_LIMITS.dataset)}.
      </p>
      <div className="row">
        <label htmlFor="dataset-verifier">Verifier</label>
        <select
          id="dataset-verifier"
          data-testid="dataset-verifier"
          value={kind}
          onChange={(e) => {
            const k = e.target.value as VerifierKind;
            setKind(k);
            if (d.payload) setVerifier({ kind: k });
          }}
        >
          {VERIFIER_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
        <span className="help">{VERIFIER_HELP[kind]}</span>
      </div>
      <label className="file-button">
        {d.loading ? 'Reading…' : 'Import a JSONL dataset…'}
        <input
          type="file"
          accept=".jsonl"
          data-testid="dataset-file"
          onChange={(e) => {
            const f = e.target.files?.[0];
            e.target.value = '';
            setNote(null);
            if (f) void importDatasetFile(f, { kind });
          }}
        />
      </label>
      {d.error && (
        <p className="inline-error" role="alert" data-testid="dataset-error">
          {d.error}
        </p>
      )}
      {s && (
        <section className="dataset-summary" data-testid="dataset-summary" data-records={s.records}>
          <h3>{s.name}</h3>
          <p>
            {s.records} line{s.records === 1 ? '' : 's'} to train on, of {s.lines}; judged by the {s.verifier} verifier.
            {s.errorCount > 0 &&
              ` ${s.errorCount} line${s.errorCount === 1 ? ' has' : 's have'} ` +
                `errors and ${s.errorCount === 1 ? 'is' : 'are'} ` +
                'skipped:'}
          </p>
          {s.errors.length > 0 && (
            <ul className="dataset-errors" data-testid="dataset-line-errors">
              {s.errors.map((e) => (
                <li key={e.line}>
                  line {e.line}: {e.reason}
                </li>
              ))}
              {s.errorCount > s.errors.length && <li>… and {s.errorCount - s.errors.length} more</li>}
            </ul>
          )}
          <table className="dataset-examples">
            <thead>
              <tr>
                <th>line</th>
                <th>prompt</th>
                <th>answer</th>
              </tr>
            </thead>
            <tbody>
              {s.examples.map((x) => (
                <tr key={x.line}>
                  <td>{x.line}</td>
                  <td>
                    <code>{x.prompt}</code>
                  </td>
                  <td>
                    <code>{x.answer}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <button
            type="button"
            className="primary"
            data-testid="dataset-train"
            onClick={() => void trainOnDataset().then((m) => setNote(m === 'started' ? null : m))}
          >
            {datasetTrainLabel(steps, runTrainsOnDataset(d), runExists)}
          </button>
          {note && <p className="note">{note}</p>}
        </section>
      )}
    </div>
  );
}
