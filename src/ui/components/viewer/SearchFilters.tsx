import { findingKinds } from '../../../runs/findings/types.ts';
import type { SearchForm } from '../../derive/search-form.ts';
import { setForm } from '../../state/viewer-actions.ts';

const numberInput = (label: string, value: string, onChange: (v: string) => void, testId: string) => (
  <input size={5} aria-label={label} value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId} />
);

/**
 * The search's filters by each reward function, the advantage's range and a finding kind, and its sort
 * (src/ui/derive/search-form.ts makes them a RunQuery; docs/viewer.md "Search and filters").
 */
export function SearchFilters({ form, rewardNames }: { form: SearchForm; rewardNames: string[] }) {
  const range = (name: string) => form.rewardRanges[name] ?? { min: '', max: '' };
  const setRange = (name: string, end: 'min' | 'max', v: string) =>
    setForm({ rewardRanges: { ...form.rewardRanges, [name]: { ...range(name), [end]: v } } });
  return (
    <>
      {rewardNames.map((name) => (
        <span key={name} data-testid="viewer-search-component">
          {name} from{' '}
          {numberInput(`${name} from`, range(name).min, (v) => setRange(name, 'min', v), `viewer-search-r-${name}`)}
          {' to '}
          {numberInput(`${name} to`, range(name).max, (v) => setRange(name, 'max', v), `viewer-search-r-${name}-to`)}
        </span>
      ))}
      <span>
        advantage from{' '}
        {numberInput(
          'advantage from',
          form.advantageMin,
          (v) => setForm({ advantageMin: v }),
          'viewer-search-advantageMin',
        )}{' '}
        to{' '}
        {numberInput(
          'advantage to',
          form.advantageMax,
          (v) => setForm({ advantageMax: v }),
          'viewer-search-advantageMax',
        )}
      </span>
      <label>
        finding{' '}
        <select
          value={form.finding}
          onChange={(e) => setForm({ finding: e.target.value })}
          data-testid="viewer-search-finding"
        >
          <option value="">any row</option>
          {findingKinds.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <label>
        sort by{' '}
        <select value={form.sort} onChange={(e) => setForm({ sort: e.target.value })} data-testid="viewer-search-sort">
          <option value="">step</option>
          <option value="reward">total reward</option>
          {rewardNames.map((name) => (
            <option key={name} value={`reward.${name}`}>
              {name}
            </option>
          ))}
          <option value="advantage">advantage</option>
          <option value="length">length</option>
        </select>
      </label>
      <select
        value={form.order}
        disabled={!form.sort}
        onChange={(e) => setForm({ order: e.target.value as SearchForm['order'] })}
        aria-label="order"
        data-testid="viewer-search-order"
      >
        <option value="desc">highest first</option>
        <option value="asc">lowest first</option>
      </select>
    </>
  );
}
