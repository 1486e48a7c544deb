import type { InspectRollout } from '../../../../workers/protocol.ts';
import { num } from '../../derive/channels.ts';
import { patch, useApp } from '../../state/store.ts';

function Flags({ r }: { r: InspectRollout }) {
  return (
    <>
      {r.hinted && (
        <span
          className="flag hint"
          title="A hint (a prefix of the reference solution) was forced at the start of this completion"
          data-testid="flag-hint"
        >
          hint
        </span>
      )}
      {r.flipped && (
        <span
          className="flag flip"
          title={
            r.flipped === 'fn'
              ? 'Noisy verifier: a correct answer judged wrong (false negative)'
              : 'Noisy verifier: a wrong answer judged right (false positive)'
          }
          data-testid="flag-flip"
        >
          flipped {r.flipped === 'fn' ? '✓→✗' : '✗→✓'}
        </span>
      )}
      {r.truncated && (
        <span className="flag trunc" title="Hit max_completion_length without <eos>">
          truncated
        </span>
      )}
    </>
  );
}

/** The step's groups: each prompt with its G completions, rewards, advantages and the verifier's reasons. */
export function GroupsTable({ records }: { records: InspectRollout[] }) {
  const open = useApp((s) => s.inspector.open);
  const groups = new Map<number, InspectRollout[]>();
  for (const r of records) groups.set(r.group, [...(groups.get(r.group) ?? []), r]);
  return (
    <div className="table-wrap">
      <table className="groups" data-testid="groups-table">
        <thead>
          <tr>
            <th scope="col">Prompt</th>
            <th scope="col">#</th>
            <th scope="col">Completion</th>
            <th scope="col">Reward</th>
            <th scope="col">Advantage</th>
            <th scope="col">Verifier</th>
          </tr>
        </thead>
        <tbody>
          {[...groups.entries()].map(([g, rs]) => {
            const rewards = rs.map((r) => r.reward);
            const zero = Math.max(...rewards) - Math.min(...rewards) < 1e-9;
            return rs.map((r, j) => {
              const selected = open?.group === g && open.index === r.index;
              return (
                <tr
                  key={`${g}-${r.index}`}
                  className={`${j === 0 ? 'group-start' : ''}${selected ? ' selected' : ''}`}
                  data-testid="rollout-row"
                >
                  {j === 0 && (
                    <th scope="rowgroup" rowSpan={rs.length} className="prompt-cell">
                      <span className="muted small">group {g}</span>
                      <pre>{r.prompt}</pre>
                      {zero && (
                        <span
                          className="flag zero"
                          title="Every completion got the same reward: all advantages are 0, this group teaches nothing"
                        >
                          zero variance
                        </span>
                      )}
                    </th>
                  )}
                  <td>{r.index}</td>
                  <td>
                    <button
                      type="button"
                      className="completion-btn"
                      aria-pressed={selected}
                      data-testid={`open-rollout-${g}-${r.index}`}
                      onClick={() => patch('inspector', { open: { group: g, index: r.index }, token: null })}
                    >
                      <span
                        className={r.correct ? 'ok' : 'bad'}
                        role="img"
                        aria-label={r.correct ? 'correct' : 'wrong'}
                      >
                        {r.correct ? '✓' : '✗'}
                      </span>{' '}
                      <code>{(r.hint + r.completion).slice(0, 60) || '(empty)'}</code>
                      {(r.hint + r.completion).length > 60 ? '…' : ''}
                    </button>
                    <Flags r={r} />
                  </td>
                  <td className="num">{num(r.reward, 3)}</td>
                  <td className={`num ${r.advantage > 0 ? 'pos' : r.advantage < 0 ? 'neg' : ''}`}>
                    {num(r.advantage, 3)}
                  </td>
                  <td className="reason">{r.reason}</td>
                </tr>
              );
            });
          })}
        </tbody>
      </table>
    </div>
  );
}

export { Flags };
