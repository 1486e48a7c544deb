/**
 * "Try the policy": a typed prompt sent to the trainer worker, answered by the base and the current
 * policy. The run is loaded first when there is none (as the pass@k explorer does).
 */
import { charCodec } from '../../model/text-codec.ts';
import { create } from 'zustand';
import type { TryResult } from '../../../workers/protocol.ts';
import { heldOutSeed } from '../../rl/evaluate.ts';
import { encodeTryPrompt } from '../../rl/try-prompt.ts';
import { safeFamily } from '../derive/config-form.ts';
import { ensureRun } from './run-load.ts';
import { effectiveDraftConfig } from './setup-state.ts';
import { client } from './worker-link.ts';
import { useDataset } from './dataset-import.ts';
import { getState } from './store.ts';

export interface TryState {
  /** null: not typed yet (the box shows the current task's example prompt). */
  prompt: string | null;
  samples: number;
  temperature: number;
  greedy: boolean;
  /** Print each token's probability under it (besides the colour and the hover text). */
  inline: boolean;
  running: boolean;
  result: TryResult | null;
  error: string | null;
}

export const useTry = create<TryState>()(() => ({
  prompt: null,
  samples: 4,
  temperature: 1,
  greedy: true,
  inline: false,
  running: false,
  result: null,
  error: null,
}));

/**
 * An example prompt of the task the run (or else the setup) trains on: its first held-out prompt, or the dataset's
 * first line.
 */
export function examplePrompt(): { prompt: string; reference: string } | null {
  const s = getState();
  const config = s.run.config ?? effectiveDraftConfig(s);
  if (!config) return null;
  if (config.task === 'custom') {
    const ex = useDataset.getState().summary?.examples[0];
    return ex ? { prompt: ex.prompt, reference: ex.answer } : null;
  }
  try {
    const inst = safeFamily(config.task)?.generate(heldOutSeed(0), config.difficulty);
    return inst ? { prompt: inst.prompt, reference: inst.reference } : null;
  } catch {
    return null;
  }
}

export async function tryPrompt(): Promise<void> {
  const t = useTry.getState();
  const prompt = t.prompt ?? examplePrompt()?.prompt ?? '';
  if (t.running) return;
  useTry.setState({ running: true, error: null });
  try {
    // Characters outside the playground's vocabulary: say so before loading anything (the worker checks
    // again in the run's own tokenizer).
    encodeTryPrompt(prompt, Infinity, charCodec);
    if (!(await ensureRun())) throw new Error('the run could not be loaded (see the message above)');
    const result = await client().call((a) =>
      a.tryPrompt({ prompt, samples: t.samples, temperature: t.temperature, greedy: t.greedy }),
    );
    useTry.setState({ result, running: false });
  } catch (e) {
    useTry.setState({ running: false, error: e instanceof Error ? e.message.replace(/^Error: /, '') : String(e) });
  }
}
