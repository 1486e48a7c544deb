#!/usr/bin/env bash
# Measures every shipped checkpoint's recipe: GRPO with the recipe and nothing else, 200 steps, on
# seeds 2, 3 and 4 (the recipes were tuned on seed 1), each followed by a held-out evaluation of the
# base and the trained model (64 prompts x 16 samples). Records rl_gain in each manifest and
# regenerates docs/measured.md's table (scripts/rl-gains-table.mjs). Resumable: rerun after a stop.
# Usage: scripts/measure-recipes.sh [TASK...]   (default: all six families)
set -euo pipefail
cd "$(dirname "$0")/.."
tasks=("$@"); [ ${#tasks[@]} -gt 0 ] || tasks=(sat sudoku arithmetic countdown chain sort)
for t in "${tasks[@]}"; do
  node scripts/rlvr.mjs sweep --task "$t" --preset grpo --seeds 2,3,4 --steps 200 --out "docs/sweeps/recipes/$t" \
    --record-gain
done
node scripts/rl-gains-table.mjs
