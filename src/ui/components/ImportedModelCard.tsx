import { useState } from 'react';
import type { ScoreTextResult } from '../../../workers/protocol.ts';
import { message } from '../state/errors.ts';
import { modelSummary } from '../derive/imported-model.ts';
import { getState, useApp } from '../state/store.ts';
import { client } from '../state/worker-link.ts';

/**
 * An imported model with its own tokenizer (a Llama or Qwen2 folder from Import Hugging Face): its
 * name, architecture and size, that Start trains it in its own tokens, and Score a text, which shows each
 * line's tokens and their log-probabilities under it (`rlvr score` in the page: the worker runs the
 * same code, workers/score-text.ts). Each line element carries its ids and log-probs in
 * data-ids / data-logprobs (JSON, full precision): e2e/hf-import-llama.spec.mjs compares them with
 * transformers'.
 */
export function ImportedModelCard() {
  const uploaded = useApp((s) => s.uploaded);
  const [text, setText] = useState('The model scores each line.\n');
  const [result, setResult] = useState<{ for: unknown; r: ScoreTextResult } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (uploaded?.manifest.tokenizer.kind !== 'hf') return null;
  const { manifest } = uploaded;
  const score = async () => {
    const u = getState().uploaded;
    if (!u) return;
    setBusy(true);
    setError(null);
    try {
      const r = await client().call((a) =>
        a.scoreText({
          manifest: u.manifest,
          bytes: u.bytes,
          files: u.files ?? {},
          text,
          backend: getState().setup.backend,
        }),
      );
      setResult({ for: u, r });
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(false);
    }
  };
  const shown = result?.for === uploaded ? result.r : null;
  return (
    <div className="field" data-testid="imported-model">
      <p>
        <strong data-testid="imported-model-summary">{modelSummary(uploaded.name, manifest)}</strong>, context{' '}
        {manifest.model.contextLength} tokens, its own tokenizer (tokenizer.json); {manifest.training.command}.
      </p>
      <p className="help" data-testid="imported-model-training">
        Start trains it in its own tokens: the task's prompts are laid out by its tokenizer and the verifier reads the
        decoded text. Set lora_r (under "Advanced: every knob", Optimisation) to train LoRA adapters on PEFT's module
        names instead of every weight.
      </p>
      <label htmlFor="score-text">Score a text (one line per scored line)</label>
      <textarea
        id="score-text"
        rows={3}
        value={text}
        data-testid="score-text"
        onChange={(e) => setText(e.target.value)}
      />
      <div className="row">
        <button type="button" disabled={busy} data-testid="score-run" onClick={() => void score()}>
          {busy ? 'Scoring…' : 'Score'}
        </button>
      </div>
      {error && (
        <p className="note warn" data-testid="score-error">
          Could not score the text: {error}
        </p>
      )}
      {shown && (
        <div data-testid="score-result">
          <p className="help">
            Each token with its log-probability given the tokens before it (temperature 1; the first has none),
            {` ${shown.seconds.toFixed(2)} s.`}
          </p>
          {shown.lines.map((line, i) => (
            <p
              key={i}
              className="score-line"
              data-testid="score-line"
              data-ids={JSON.stringify(line.ids)}
              data-logprobs={JSON.stringify(line.logprobs)}
            >
              {line.tokens.map((t, j) => (
                <span
                  key={j}
                  className="score-token"
                  title={
                    `id ${line.ids[j]}: ` + (line.logprobs[j] === null ? 'first token' : line.logprobs[j]!.toFixed(4))
                  }
                >
                  {t}
                  <sub>{line.logprobs[j] === null ? '' : line.logprobs[j]!.toFixed(2)}</sub>{' '}
                </span>
              ))}
            </p>
          ))}
        </div>
      )}
    </div>
  );
}
