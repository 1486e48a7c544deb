import type { RunSearchHit } from '../../../runs/types.ts';
import { useApp } from '../../state/store.ts';
import { cancelSearch, runSearch, setForm, showStep, SEARCH_LIMIT } from '../../state/viewer-actions.ts';
import { cell } from '../../derive/run-view-model.ts';
import { searchStatus, type SearchForm } from '../../derive/search-form.ts';
import { ProblemList } from './ProblemList.tsx';
import { RewardHistogram } from './RewardHistogram.tsx';
import { SearchFilters } from './SearchFilters.tsx';

function Hit({ h }: { h: RunSearchHit }) {
  return (
    <tr data-testid="viewer-hit" data-step={h.step} data-row={h.row} data-reward={h.reward}>
      <td>
        <button type="button" className="link" onClick={() => void showStep(h.step)}>
          step {h.step}
        </button>
      </td>
      <td>{h.group}</td>
      <td>
        <pre className="viewer-hit-text">{h.prompt}</pre>
      </td>
      <td>
        <pre className="viewer-hit-text">{h.completion}</pre>
      </td>
      <td>
        {cell(h.reward)}
        {h.rewards && Object.keys(h.rewards).length > 1 && (
          <span className="muted">
            {' '}
            (
            {Object.entries(h.rewards)
              .map(([k, v]) => `${k} ${cell(v, 2)}`)
              .join(', ')}
            )
          </span>
        )}
      </td>
      <td>{cell(h.advantage)}</td>
      <td>{h.length}</td>
    </tr>
  );
}

const text = (label: string, key: keyof SearchForm, form: SearchForm, width = 6) => (
  <label>
    {label}{' '}
    <input
      size={width}
      value={form[key] as string}
      onChange={(e) => setForm({ [key]: e.target.value })}
      data-testid={`viewer-search-${key}`}
    />
  </label>
);

const none: string[] = [];

/** Search and filters over every step of the open run, with progress and a Cancel button. */
export function SearchPanel() {
  const form = useApp((s) => s.viewer.form);
  const search = useApp((s) => s.viewer.search);
  const hits = search.result?.hits ?? [];
  const rewardNames = useApp((s) => s.viewer.runs.find((r) => r.key === s.viewer.open)?.index?.rewardNames ?? none);
  return (
    <section className="viewer-search" aria-label="Search every step">
      <form
        className="viewer-search-form"
        onSubmit={(e) => {
          e.preventDefault();
          runSearch();
        }}
      >
        <label>
          Text{' '}
          <input
            size={18}
            value={form.text}
            onChange={(e) => setForm({ text: e.target.value })}
            data-testid="viewer-search-text"
            placeholder="text or /regex/"
          />
        </label>
        <label>
          <input type="checkbox" checked={form.regex} onChange={(e) => setForm({ regex: e.target.checked })} /> regex
        </label>
        <label>
          in{' '}
          <select value={form.in} onChange={(e) => setForm({ in: e.target.value as SearchForm['in'] })}>
            <option value="both">prompt or completion</option>
            <option value="prompt">prompt</option>
            <option value="completion">completion</option>
          </select>
        </label>
        {text('reward from', 'rewardMin', form)}
        {text('to', 'rewardMax', form)}
        <label>
          advantage{' '}
          <select
            value={form.advantageSign}
            onChange={(e) => setForm({ advantageSign: e.target.value as SearchForm['advantageSign'] })}
            data-testid="viewer-search-sign"
          >
            <option value="">any</option>
            <option value="positive">&gt; 0</option>
            <option value="negative">&lt; 0</option>
            <option value="zero">= 0</option>
          </select>
        </label>
        {text('length from', 'lengthMin', form)}
        {text('to', 'lengthMax', form)}
        <label>
          <input
            type="checkbox"
            checked={form.zeroVarianceGroups}
            onChange={(e) => setForm({ zeroVarianceGroups: e.target.checked })}
          />{' '}
          zero-variance groups
        </label>
        <label>
          <input type="checkbox" checked={form.truncated} onChange={(e) => setForm({ truncated: e.target.checked })} />
          {' truncated'}
        </label>
        <label>
          <input
            type="checkbox"
            checked={form.untruncated}
            onChange={(e) => setForm({ untruncated: e.target.checked })}
          />
          {' not truncated'}
        </label>
        <SearchFilters form={form} rewardNames={rewardNames} />
        <button type="submit" disabled={search.running} data-testid="viewer-search-run">
          Search every step
        </button>
        <button
          type="button"
          disabled={!search.running}
          onClick={() => cancelSearch()}
          data-testid="viewer-search-cancel"
        >
          Cancel
        </button>
      </form>
      {search.error && (
        <p className="bad" role="alert">
          {search.error}
        </p>
      )}
      <p
        role="status"
        data-testid="viewer-search-status"
        data-running={search.running ? 'true' : 'false'}
        data-cancelled={search.result?.cancelled ? 'true' : undefined}
        data-count={search.result?.count}
      >
        {searchStatus(search.progress, search.result, Math.min(SEARCH_LIMIT, hits.length), search.running)}
      </p>
      {/* Step files the search could not read, in the page or near the files (rlvr view): named, not hidden. */}
      <ProblemList
        problems={search.result?.problems ?? []}
        what="in the searched steps"
        rest="the rest searched"
        testId="viewer-search-problems"
      />
      {search.result?.histogram && <RewardHistogram histogram={search.result.histogram} />}
      {hits.length > 0 && (
        <div className="table-wrap">
          <table className="groups" data-testid="viewer-hits">
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col">Group</th>
                <th scope="col">Prompt</th>
                <th scope="col">Completion</th>
                <th scope="col">Reward</th>
                <th scope="col">Advantage</th>
                <th scope="col">Length</th>
              </tr>
            </thead>
            <tbody>
              {hits.map((h) => (
                <Hit key={`${h.step}-${h.row}`} h={h} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
