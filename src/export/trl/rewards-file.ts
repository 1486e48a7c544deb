/**
 * rewards.py for one task: the shared verdict code, the family's verifier and the TRL reward
 * functions (python/*.py) joined into one standard-library-only file, with this run's reward
 * settings written in between. Lines marked `# rlvr:strip` are the imports that let each source
 * file run on its own; in the joined file the names are already defined above.
 */
import type { RunConfig } from '../../rl/config.ts';
import { tokenizerSpec } from '../../model/tokenizer.ts';
import { portedFamilies, pythonSource } from './python-text.ts';
import { pyValue } from './python-literal.ts';

function body(name: string): string {
  return pythonSource(name)
    .split('\n')
    .filter((line) => !line.includes('# rlvr:strip'))
    .join('\n')
    .trim();
}

/** The settings block: what the Python side needs from the run config and the tokenizer. */
export function settingsSource(config: RunConfig): string {
  return [
    "# ---- this run's settings (rlvr export --format trl) ----",
    `TASK = ${pyValue(config.task)}`,
    `REWARD_WEIGHTS = ${pyValue(config.reward_weights)}`,
    '# the deliberately lenient verifier of the reward-hacking lesson (leaky_verifier)',
    `LEAKY = ${pyValue(config.leaky_verifier)}`,
    `OVERLONG = ${pyValue({
      enabled: config.overlong_penalty,
      cache_length: config.overlong_cache_length,
      max_length: config.max_completion_length,
    })}`,
    '# the playground tokenizer (src/model/tokenizer.ts): ids 0.. are these specials, then these characters',
    `SPECIALS = ${pyValue([...tokenizerSpec.specials])}`,
    `CHARS = ${pyValue(tokenizerSpec.chars)}`,
  ].join('\n');
}

export function rewardsSource(config: RunConfig): string {
  if (!(portedFamilies as readonly string[]).includes(config.task)) {
    throw new Error(
      `the TRL export has reward functions for ${portedFamilies.join(', ')}; not for task "${config.task}"`,
    );
  }
  const header = [
    `"""Reward functions for the rlvr playground's ${config.task} task, for TRL's GRPOTrainer.`,
    '',
    "A port of the playground's TypeScript verifier (src/tasks/) that gives the same rewards on",
    'every completion; Python standard library only. `python3 rewards.py < rows.jsonl` scores',
    'JSONL rows {"completion", "data"} and prints the reward and its components per row.',
    '"""',
  ].join('\n');
  return (
    [header, body('rlvr_verdict'), body(config.task), settingsSource(config), body('trl_rewards')].join('\n\n\n') + '\n'
  );
}
