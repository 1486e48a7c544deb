import { useId } from 'react';
import type { TriedPolicy } from '../../../workers/protocol.ts';
import type { TriedCompletion } from '../../rl/try-prompt.ts';
import { TRY_ROWS } from '../../rl/try-prompt.ts';
import { useApp } from '../state/store.ts';
import { examplePrompt, tryPrompt, useTry } from '../state/try-policy.ts';

/** Low probability red, high green (lightness kept readable on both themes' text colour). */
const probColor = (p: number) => `hsl(${Math.round(120 * p)}, 70%, 80%)`;

const setGreedy = (greedy: boolean) => useTry.setState({ greedy });

/** One completion, token by token, each coloured by its probability; hover or focus shows the number. */
function Tokens({ c, label }: { c: TriedCompletion; label: string }) {
  const inline = useTry((s) => s.inline);
  return (
    <div className="try-completion" data-testid="try-completion">
      <div className="try-tokens" role="group" aria-label={`${label}: ${c.text || '(empty)'}`}>
        {c.tokens.map((t, i) => (
          <span
            key={i}
            className="try-token"
            data-testid="try-token"
            data-p={t.p}
            title={`token ${i}: ${JSON.stringify(t.text)} · p = ${t.p.toFixed(4)}`}
            style={{ background: probColor(t.p) }}
          >
            {t.text === '\n' ? '⏎' : t.text}
            {inline && <sub className="try-p">{t.p.toFixed(2)}</sub>}
          </span>
        ))}
        {c.truncated && <span className="muted small"> (cut at the length cap)</span>}
      </div>
      {c.verdict && (
        <span className={`try-verdict ${c.verdict.correct ? 'ok' : 'bad'}`} data-testid="try-verdict">
          {c.verdict.correct ? '✓' : '✗'} {c.verdict.reason}
        </span>
      )}
    </div>
  );
}

function Side({ title, side }: { title: string; side: TriedPolicy }) {
  return (
    <section className="try-side" data-testid={`try-${title.split(' ')[0]!.toLowerCase()}`}>
      <h3>{title}</h3>
      {side.greedy && (
        <>
          <h4>Greedy (most likely token each time)</h4>
          <Tokens c={side.greedy} label={`${title}, greedy`} />
        </>
      )}
      {side.samples.length > 0 && <h4>Sampled</h4>}
      {side.samples.map((c, i) => (
        <Tokens key={i} c={c} label={`${title}, sample ${i + 1}`} />
      ))}
    </section>
  );
}

/** Type a prompt; the base checkpoint and the policy being trained answer it side by side. */
export default function TryPolicyPanel() {
  const t = useTry();
  const task = useApp((s) => s.run.config?.task ?? s.setup.draft.task);
  useApp((s) => s.run.config); // re-render when the run (and so the example) changes
  const example = examplePrompt();
  const prompt = t.prompt ?? example?.prompt ?? '';
  const id = useId();
  const r = t.result;
  return (
    <div className="try">
      <p>
        The playground's chat box: the base checkpoint and the current policy answer the same prompt with the sampler
        training uses, greedily and by sampling. Each token is coloured by the probability the policy gave it (red
        unlikely, green likely; hover for the number). Prompts are in the task's own format ({task}).
      </p>
      <div className="try-form" role="group" aria-label="Prompt and sampling">
        <label htmlFor={`${id}-prompt`}>Prompt</label>
        <div className="row">
          <input
            id={`${id}-prompt`}
            type="text"
            className="try-prompt"
            data-testid="try-prompt"
            value={prompt}
            spellCheck={false}
            onChange={(e) => useTry.setState({ prompt: e.target.value })}
            onKeyDown={(e) => {
              if (e.key === 'Enter') void tryPrompt();
            }}
          />
          <button
            type="button"
            className="primary"
            data-testid="try-run"
            disabled={t.running || prompt === ''}
            aria-busy={t.running}
            onClick={() => void tryPrompt()}
          >
            {t.running ? 'Sampling…' : 'Answer'}
          </button>
        </div>
        {example && (
          <p className="help">
            Example of this task: <code>{example.prompt}</code>, reference answer <code>{example.reference}</code>{' '}
            <button type="button" className="link" onClick={() => useTry.setState({ prompt: null })}>
              use it
            </button>
          </p>
        )}
        <div className="row try-options">
          <label>
            <input type="checkbox" checked={t.greedy} onChange={(e) => setGreedy(e.target.checked)} /> greedy
          </label>
          <label>
            samples{' '}
            <input
              type="number"
              min={0}
              max={TRY_ROWS}
              value={t.samples}
              data-testid="try-samples"
              onChange={(e) => useTry.setState({ samples: Number(e.target.value) })}
            />
          </label>
          <label>
            temperature{' '}
            <input
              type="number"
              min={0.05}
              max={10}
              step={0.1}
              value={t.temperature}
              data-testid="try-temperature"
              onChange={(e) => useTry.setState({ temperature: Number(e.target.value) })}
            />
          </label>
          <label>
            <input
              type="checkbox"
              checked={t.inline}
              data-testid="try-inline"
              onChange={(e) => useTry.setState({ inline: e.target.checked })}
            />{' '}
            probabilities inline
          </label>
        </div>
      </div>
      {t.running && (
        <p className="muted" role="status">
          Sampling with the current and the base weights (between training steps)…
        </p>
      )}
      {t.error && (
        <p className="inline-error" role="alert" data-testid="try-error">
          {t.error}
        </p>
      )}
      {r && (
        <div data-testid="try-result" data-step={r.step}>
          <p className="muted small">
            {r.promptTokens} prompt tokens (this run holds up to {r.promptLen}); current policy at step {r.step};{' '}
            {r.seconds.toFixed(1)} s.{' '}
            {r.instance ? (
              <>
                This is {r.instance.where}: the verifier judges each answer (reference{' '}
                <code>{r.instance.reference}</code>).
              </>
            ) : (
              'Not one of the task’s own prompts, so no verdict.'
            )}
          </p>
          <div className="try-sides">
            <Side title="Base checkpoint" side={r.base} />
            <Side title="Current policy" side={r.current} />
          </div>
        </div>
      )}
    </div>
  );
}
