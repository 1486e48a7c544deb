import { useEffect } from 'react';
import { type Finding, type FindingKind, findingKinds } from '../../../runs/findings/types.ts';
import { useApp } from '../../state/store.ts';
import { runByKey } from '../../state/viewer-actions.ts';
import { cancelFindings, openFinding, runFindings, setFindingKind } from '../../state/viewer-findings.ts';

function FindingItem({ f }: { f: Finding }) {
  const marked = useApp((s) => s.viewer.marked);
  const isOpen = marked?.step === f.step && marked.rows === f.rows;
  return (
    <li data-testid="viewer-finding" data-kind={f.kind} data-step={f.step} data-rows={f.rows.join(',')}>
      <button
        type="button"
        className="link"
        aria-current={isOpen ? 'true' : undefined}
        onClick={() =>
          void openFinding(f).then(() =>
            document.querySelector('[data-testid="viewer-groups"]')?.scrollIntoView({ block: 'start' }),
          )
        }
      >
        <strong>{f.kind}</strong> · step {f.step}
        {f.group !== null ? ` · group ${f.group}` : ''} · {f.rows.length} rows · score {f.score.toFixed(2)}
      </button>
      <div className="small">{f.text}</div>
    </li>
  );
}

/**
 * The Findings panel: what looks wrong in the open run over every step (docs/findings.md), highest score
 * first, one kind or all (`finding=KIND` in a link); clicking one opens its step with its rows marked.
 */
export function FindingsPanel() {
  const open = useApp((s) => s.viewer.open);
  const findings = useApp((s) => s.viewer.findings);
  const kind = useApp((s) => s.viewer.findingKind);
  const ready = useApp((s) => !!runByKey(s.viewer.open)?.opened);
  // A link that names a kind (or a kind chosen before looking) looks at once.
  useEffect(() => {
    if (ready && kind && !findings.list && !findings.running && !findings.error) void runFindings();
  }, [ready, kind, findings.list, findings.running, findings.error, open]);
  if (!open || !ready) return null;
  const list = findings.list ?? [];
  const shown = kind ? list.filter((f) => f.kind === kind) : list;
  const count = (k: FindingKind) => list.filter((f) => f.kind === k).length;
  return (
    <section className="viewer-findings" aria-label="Findings" data-testid="viewer-findings">
      <h4>Findings</h4>
      <p className="small muted">
        What looks wrong over every step, each with the rows behind it (definitions and thresholds: docs/findings.md).
      </p>
      <div className="viewer-findings-controls">
        {!findings.running && (
          <button type="button" onClick={() => void runFindings()} data-testid="viewer-findings-run">
            {findings.list ? 'Look again' : 'Look for findings in every step'}
          </button>
        )}
        {findings.running && (
          <>
            <span role="status" data-testid="viewer-findings-progress">
              Reading steps
              {findings.progress ? ` ${findings.progress.done} of ${findings.progress.total}` : ''}…
            </span>{' '}
            <button type="button" onClick={cancelFindings}>
              Cancel
            </button>
          </>
        )}{' '}
        <label>
          Kind{' '}
          <select
            value={kind ?? ''}
            onChange={(e) => setFindingKind((e.target.value || null) as FindingKind | null)}
            data-testid="viewer-findings-kind"
          >
            <option value="">every kind{findings.list ? ` (${list.length})` : ''}</option>
            {findingKinds.map((k) => (
              <option key={k} value={k}>
                {k}
                {findings.list ? ` (${count(k)})` : ''}
              </option>
            ))}
          </select>
        </label>
      </div>
      {findings.error && (
        <p className="bad" role="alert">
          {findings.error}
        </p>
      )}
      {findings.list && (
        <p className="small" data-testid="viewer-findings-count">
          {shown.length === 0
            ? `No ${kind ?? ''} findings in this run.`.replace('  ', ' ')
            : `${shown.length} finding${shown.length === 1 ? '' : 's'}${kind ? ` of kind ${kind}` : ''}, ` +
              'highest score first:'}
        </p>
      )}
      {shown.length > 0 && (
        <ol>
          {shown.map((f) => (
            <FindingItem key={`${f.kind}:${f.step}:${f.group}:${f.rows.join(',')}`} f={f} />
          ))}
        </ol>
      )}
    </section>
  );
}
