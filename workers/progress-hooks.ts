/**
 * Progress from inside long engine calls, for the status bar: a training step can take minutes on a
 * software GPU and the held-out evaluation tens of seconds, so each reports how far it is. The hooks
 * sit on one policy only while the call runs.
 */
import type { Policy } from '../src/model/policy.ts';
import { heldOutSamples, type RunConfig } from '../src/rl/config.ts';
import type { AdvanceHooks, TrainingRun } from '../src/rl/run.ts';
import type { SessionEvent } from './protocol.ts';

type Emit = (e: Extract<SessionEvent, { type: 'progress' }>) => void;

/**
 * One training step by phase: tokens sampled of the most allowed (per sampling round), scoring with
 * the reference policy, then each update minibatch. Returns the function that removes the hooks.
 */
export function trackStepPhases(p: Policy, c: RunConfig, emitEvent: Emit): () => void {
  const emit = (phase: string, done: number, total: number) =>
    emitEvent({ type: 'progress', what: 'step', phase, done, total });
  const { sample, score, train } = p;
  let rounds = 0;
  let updates = 0;
  const totalUpdates = c.num_iterations * c.minibatches;
  const sampling = () => (rounds > 1 ? `sampling (round ${rounds}), tokens` : 'sampling, tokens');
  p.sample = (...a) => {
    rounds++;
    emit(sampling(), 0, Math.min(a[2], p.layout.completionLen));
    return sample.apply(p, a);
  };
  p.onDecode = (t, max) => emit(sampling(), t, max);
  p.score = (...a) => {
    emit('scoring the reference policy', 0, 1);
    return score.apply(p, a);
  };
  p.train = (...a) => {
    emit('updating, minibatches', updates, totalUpdates);
    return train.apply(p, a).finally(() => emit('updating, minibatches', ++updates, totalUpdates));
  };
  return () => {
    p.onDecode = null;
    for (const k of ['sample', 'score', 'train'] as const) delete (p as unknown as Record<string, unknown>)[k];
  };
}

/**
 * The held-out evaluation in samples done, refined within each sampling batch by the tokens decoded
 * (a batch is a quarter of the evaluation or more at the defaults). Pass `onProgress` to the evaluation.
 */
export function trackEvalSamples(
  p: Policy,
  c: RunConfig,
  emitEvent: Emit,
): { onProgress: (done: number, total: number) => void; stop: () => void } {
  const batchRows = c.prompts_per_step * c.num_generations;
  let done = 0;
  let total = c.eval_prompts * heldOutSamples(c);
  p.onDecode = (t, max) =>
    emitEvent({
      type: 'progress',
      what: 'eval',
      done: Math.min(total, done + Math.floor((batchRows * t) / max)),
      total,
    });
  return {
    onProgress: (d, t) => {
      done = d;
      total = t;
      emitEvent({ type: 'progress', what: 'eval', done: d, total: t });
    },
    stop: () => {
      p.onDecode = null;
    },
  };
}

/**
 * The hooks one run step reports through: the held-out evaluation's samples and each update's
 * phases as progress events, the activity line as it changes. `stop` ends any tracking left open.
 */
export function watchedStep(
  run: TrainingRun,
  next: number,
  emitEvent: (e: SessionEvent) => void,
  setActivity: (a: string) => void,
) {
  let evalTrack: ReturnType<typeof trackEvalSamples> | null = null;
  const hooks: AdvanceHooks = {
    onEvalStart: () => {
      setActivity(`held-out pass@k on ${run.config.eval_prompts} prompts`);
      evalTrack = trackEvalSamples(run.policy, run.config, emitEvent);
    },
    onEvalProgress: (done, total) => evalTrack?.onProgress(done, total),
    onEval: (point) => {
      evalTrack?.stop();
      evalTrack = null;
      emitEvent({ type: 'eval', point });
    },
    onUpdateStart: () => setActivity(`step ${next}: sampling, verifying, updating`),
  };
  return {
    hooks,
    async step<T>(train: () => Promise<T>): Promise<T> {
      const untrack = trackStepPhases(run.policy, run.config, emitEvent);
      try {
        return await train();
      } finally {
        untrack();
      }
    },
    stop: () => (evalTrack as ReturnType<typeof trackEvalSamples> | null)?.stop(),
  };
}
