import { histogramBars } from '../../../runs/reward-histogram.ts';
import type { RewardHistogram as Histogram } from '../../../runs/types.ts';
import { cell } from '../../derive/run-view-model.ts';
import { runSearch, setForm } from '../../state/viewer-actions.ts';

const span = (lo: number, hi: number) => (lo === hi ? `all ${cell(lo)}` : `${cell(lo)} to ${cell(hi)}`);

/**
 * The total rewards of every match of the search (not only the hits listed), counted by the search in the
 * same pass (src/runs/reward-histogram.ts). A bar's range is the least and greatest reward it counts, so
 * clicking it searches again with that reward range and finds exactly its count.
 */
export function RewardHistogram({ histogram }: { histogram: Histogram }) {
  const bars = histogramBars(histogram);
  const most = Math.max(1, ...bars.map((b) => b.count));
  if (bars.length === 0) return null;
  return (
    <figure className="viewer-histogram" data-testid="viewer-histogram">
      <div className="viewer-histogram-bars">
        {bars.map((b) => {
          const label = b.min === b.max ? cell(b.min) : `${cell(b.min)} to ${cell(b.max)}`;
          return (
            <button
              type="button"
              key={`${b.min}`}
              title={`reward ${label}: ${b.count} completion${b.count === 1 ? '' : 's'}; click to keep only these`}
              aria-label={`reward ${label}: ${b.count}`}
              data-testid="viewer-histogram-bar"
              data-min={b.min}
              data-max={b.max}
              data-count={b.count}
              style={{ height: `${Math.max(4, (80 * b.count) / most)}px` }}
              onClick={() => {
                setForm({ rewardMin: String(b.min), rewardMax: String(b.max) });
                runSearch();
              }}
            />
          );
        })}
      </div>
      <div className="viewer-histogram-bars viewer-histogram-labels" aria-hidden="true">
        {bars.map((b) => (
          <span key={`${b.min}`}>{b.min === b.max ? cell(b.min, 2) : `${cell(b.min, 2)}–${cell(b.max, 2)}`}</span>
        ))}
      </div>
      <figcaption>
        Total reward of every match, {span(bars[0]!.min, bars[bars.length - 1]!.max)}
        {histogram.nonFinite > 0 ? ` (${histogram.nonFinite} not finite, not drawn)` : ''}: click a bar to keep only it.
      </figcaption>
    </figure>
  );
}
