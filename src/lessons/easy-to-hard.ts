import { pk, f3, hardSudoku, type Lesson } from './lesson.ts';

export const easyToHard: Lesson = {
  id: 'easy-to-hard',
  title: 'Easy to hard: a SATURN-style ladder',
  paper: 'SATURN',
  claim:
    'SATURN trains on SAT puzzles with a curriculum "from easy to hard" and "a principled mechanism to control ' +
    'difficulty transitions", and reports pass@3 (solved within 3 tries) "+14.0 and +28.1" points for models of ' +
    '1.5 and 7 billion parameters (1.5B/7B).',
  text:
    'Words first. A curriculum trains on easy problems first, then harder ones. The base policy is the shipped ' +
    'model before RL. For each puzzle GRPO samples a group of answers and pushes each one up or down by its ' +
    "advantage: its reward against its group's average. pass@k is the chance that one of k tries is right; " +
    'held-out puzzles are never trained on. The target is 4×4 sudoku with 10 of its 16 cells blank, the hardest ' +
    '4×4 level. The base solves none of these: its held-out pass@16 is 0 over 32 puzzles. Run A (fixed) trains ' +
    'there directly: it starts with groups that are all wrong, so every advantage is 0 and nothing is learned ' +
    "until a rare success turns up. Run B (ladder) starts at 8 blanks (ladder_start = 2: the ladder's levels are " +
    '4, 6, 8 and 10 blanks, counted from 0) and moves up a level when its accuracy over the last 5 steps (the ' +
    'Accuracy chart) reaches 0.4, down a level below 0.05. The levels overlap: an answer at 10 blanks is an ' +
    'answer at 8 blanks with two more cell assignments, so what the ladder learns at 8 carries over. Both train 8 ' +
    "puzzles a step (64 answers) for 150 steps. Watch the Difficulty chart (the ladder's level over time), the " +
    "fixed run's Accuracy chart (flat at 0 until its first success), and held-out pass@1 at 10 blanks. The " +
    'lesson shows its effect when the ladder ends more than 0.03 (3 percentage points) of held-out pass@1 above ' +
    'the fixed run at the target, on the mean over six seeds. The result is in the box below (seeds 23 to 28); ' +
    'what follows is how this setup was chosen, not the result. The number of answers a step matters. At 16 ' +
    'puzzles a step (128 answers) direct training found rare successes by step 25 to 45 and caught up, and the ' +
    'ladder did not help (seeds 11 to 16: fixed 0.236, ladder 0.216); that is why this staging trains 8. Trial ' +
    'runs at 8 puzzles a step (seeds 4, 5 and 6, used only to choose the setup) looked better for the ladder than ' +
    'the measurement did: the fixed run found no success in 150 steps on two of the three (held-out pass@1 fixed ' +
    '0.000, 0.000 and 0.250; ladder 0.256, 0.221 and 0.281). On the six measured seeds direct training found its ' +
    "first success on five, between steps 23 and 41. So the ladder's advantage is smaller than the trials " +
    'suggested: it reaches the target 20 to 40 steps sooner, and it still learns on a seed where direct training ' +
    'never starts. An earlier version of this lesson, on SAT (the logic puzzle of the other lessons, target 8 ' +
    'clauses), did not show, because there the levels do not overlap: a SAT answer names one literal per clause, ' +
    'a model trained on 6-clause answers failed almost every 8-clause problem (0 to 8% each time the ladder moved ' +
    'up), and direct training found its rare successes (held-out pass@1, mean of seeds 1 to 3: base 0.036, fixed ' +
    '0.264, ladder 0.031).',
  lookAt: ['accuracy', 'difficulty', 'eval'],
  task: 'sudoku',
  steps: 150,
  runs: [
    { label: 'fixed', preset: 'grpo', config: { prompts_per_step: 8, difficulty: hardSudoku } },
    {
      label: 'ladder',
      preset: 'grpo',
      config: {
        prompts_per_step: 8,
        difficulty: hardSudoku,
        curriculum: 'ladder',
        ladder_start: 2,
        ladder_window: 5,
        ladder_advance_at: 0.4,
        ladder_step_back_at: 0.05,
      },
    },
  ],
  measures: [
    { description: 'batch accuracy, last 20 steps (at the current level)', metric: 'accuracy', window: 20 },
    {
      description: 'held-out pass@1 and pass@16 at the target at the end (base in the same table)',
      metric: 'eval',
      window: 1,
    },
  ],
  // Re-staged a second time (the rule of the first staging, unchanged): at 16 puzzles a step, on
  // seeds 11 to 16, direct training found rare successes and caught up (fixed 0.236, ladder 0.216;
  // docs/sweeps.md). Now at 8 puzzles a step, where the pilots (seeds 4, 5, 6: ladder minus fixed
  // +0.256, +0.221, +0.031) found direct training stuck at 0 on two of three seeds. The number is set
  // here: left unset it falls to sudoku-tiny's recipe (64 a step), which is how seeds 17 to 20 were
  // run by mistake (docs/sweeps.md); measured on seeds 23 to 28, never used for this lesson.
  seeds: [23, 24, 25, 26, 27, 28],
  verdict: (m) => {
    const base = pk(m.base_pass_at_k, 1);
    const fixed = pk(m.runs[0]?.final_pass_at_k, 1);
    const ladder = pk(m.runs[1]?.final_pass_at_k, 1);
    const nums = `held-out pass@1 at the hard level: base ${f3(base)}, fixed ${f3(fixed)}, ladder ${f3(ladder)}`;
    if (!Number.isFinite(ladder))
      return {
        shows: false,
        text: 'Not measured at the hard level: run the lesson again to get the held-out evaluation.',
      };
    return ladder > fixed + 0.03
      ? {
          shows: true,
          text:
            'Shows: training on the ladder transferred to the hard level better than training on it ' +
            `directly (${nums}).`,
        }
      : {
          shows: false,
          text:
            `No advantage for the ladder at the hard level in this run (${nums}). Training at the target ` +
            `directly found its rare successes as fast as the ladder's easier level taught them.`,
        };
  },
};
