import { useMemo } from 'react';
import { draftValidation, selectedManifest } from '../../state/setup-state.ts';
import { draftPatch, safeFamily } from '../../derive/config-form.ts';
import { resolveOrThrow } from '../../../rl/resolve-config.ts';
import { getState, setState, useApp } from '../../state/store.ts';

const KEY = 'rlvr-guide-dismissed';

/**
 * Opens the guide on a first visit; once dismissed it stays closed (the Guide button reopens it). A link to
 * something to look at (`?lesson=`, `?run=`, `?view=`) leaves it closed: it would push what the link shows a
 * screen and a half down.
 */
export function initGuide(linked = false): void {
  if (linked) {
    setState({ guideOpen: false });
    return;
  }
  let dismissed = false;
  try {
    dismissed = localStorage.getItem(KEY) === '1';
  } catch {
    /* storage blocked: show it */
  }
  setState({ guideOpen: !dismissed });
}

export function closeGuide(): void {
  try {
    localStorage.setItem(KEY, '1');
  } catch {
    /* not remembered */
  }
  setState({ guideOpen: false });
}

/**
 * One held-out prompt of the task as set up, with the completion that gets full reward. It depends only
 * on the task and its difficulty (over the checkpoint's recipe), so another invalid field (a wrong
 * num_generations in a link) does not hide it; when it cannot be made, the message names what is wrong.
 */
function exampleOf(): {
  example: ReturnType<NonNullable<ReturnType<typeof safeFamily>>['generate']> | null;
  why: string;
} {
  const s = getState();
  const d = s.setup.draft;
  const family = safeFamily(d.task);
  const bad = Object.entries(draftValidation(s).errors).filter(
    ([k]) => k === 'task' || k === 'difficulty' || k.startsWith('difficulty.'),
  );
  const named = bad.map(([k, m]) => `${k}: ${m}`).join('; ');
  if (!family) return { example: null, why: `fix the task first (${named || `unknown task "${d.task}"`})` };
  try {
    const c = resolveOrThrow({
      manifest: selectedManifest(s),
      layers: [{ source: { kind: 'edited' }, values: { task: d.task, difficulty: draftPatch(d).difficulty } }],
    });
    return { example: family.generate(0, c.difficulty), why: '' };
  } catch (e) {
    // A task whose instances need data the form does not hold (custom: the imported dataset), or a bad knob.
    return {
      example: null,
      why: named
        ? `fix the difficulty first (${named})`
        : d.task === 'custom'
          ? 'import a dataset on the Your data tab to see its prompts'
          : (e as Error).message,
    };
  }
}

function Example() {
  const setup = useApp((s) => s.setup);
  const checkpoints = useApp((s) => s.checkpoints);
  const { example, why } = useMemo(exampleOf, [setup, checkpoints]);
  if (!example)
    return (
      <p className="muted" data-testid="guide-no-example">
        (No example: {why}.)
      </p>
    );
  return (
    <div className="guide-example" data-testid="guide-example">
      <p>
        An example from <code>{example.task}</code> at the difficulty in the setup (held-out prompt 1: the evaluation
        uses it, training never sees it). The model reads:
      </p>
      <pre data-testid="guide-prompt">{example.prompt}</pre>
      <p>
        A completion that gets full reward (the generator's reference; its answer is {JSON.stringify(example.answer)}):
      </p>
      <pre data-testid="guide-reference">{example.reference}</pre>
    </div>
  );
}

/** The first-run guide: what happens when you press Start, what to watch, and what the task looks like. */
export function Guide() {
  const open = useApp((s) => s.guideOpen);
  if (!open) return null;
  return (
    <section className="guide" aria-labelledby="guide-title" data-testid="guide">
      <header className="row">
        <h2 id="guide-title">First time here? What happens when you press Start</h2>
        <button type="button" className="primary" data-testid="guide-close" onClick={closeGuide}>
          Got it
        </button>
      </header>
      <ol>
        <li>
          <strong>A small language model learns by trial and verified error.</strong> The checkpoint chosen in the setup
          already saw the task&apos;s format in supervised training; now, for each prompt, it samples a group of
          answers, a verifier checks each one, and the answers that beat their group&apos;s average are made more likely
          (GRPO). Everything runs in this tab.
        </li>
        <li>
          <strong>First, a baseline.</strong> Before step 1 the page measures the untouched model on held-out prompts (a
          percentage at the top shows how far it is); that is step 0 of the Held-out pass@k chart.
        </li>
        <li>
          <strong>What to watch.</strong> <em>Reward</em> and <em>Accuracy</em> should climb over tens of steps;{' '}
          <em>Zero-variance groups</em> are prompts where every answer got the same reward, so nothing is learned from
          them; <em>Held-out pass@k</em> says whether the gain carries over to prompts the model never trains on. Charts
          that cannot move under your settings say why. The <em>Rollouts</em> tab shows each sampled answer token by
          token.
        </li>
        <li>
          <strong>Then experiment.</strong> The <em>Lessons</em> tab replays published findings (clip-higher, KL, noisy
          verifiers…) as runs you can watch.
        </li>
      </ol>
      <Example />
      <p className="muted small">Close this with “Got it”; the Guide button next to Start opens it again.</p>
    </section>
  );
}
