#!/usr/bin/env bash
# Measures learning from the shipped base checkpoint: held-out pass@1 before and after RL, with the
# curve of periodic evaluations and the wall time.
# Usage: scripts/measure-learning.sh [TASK] [PRESET] [STEPS] [extra rlvr train flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
task=${1:-sat}; preset=${2:-grpo}; steps=${3:-200}; shift $(( $# < 3 ? $# : 3 ))
out=runs/learning-$task-$preset
rlvr() { node scripts/rlvr.mjs "$@"; }
base=$(node -e "const m=require('./public/checkpoints/$task-tiny/manifest.json');
console.log(JSON.stringify(m.tasks[0].difficulty))")
start=$(date +%s)
rlvr train --task "$task" --preset "$preset" --steps "$steps" --seed 1 --out "$out" --rollouts last "$@"
end=$(date +%s)
echo "== held-out pass@k, 64 prompts x 16 samples, difficulty $base"
echo -n "base:    "
rlvr eval --model "public/checkpoints/$task-tiny/manifest.json" --task "$task" --difficulty "$base" \
  --prompts 64 --n 16 --k 1,8 --seed 0 2>/dev/null
echo -n "trained: "
rlvr eval --model "$out/manifest.json" --task "$task" --difficulty "$base" --prompts 64 --n 16 --k 1,8 --seed 0 \
  2>/dev/null
echo "== curve (step: held-out pass@1 on eval_prompts x num_generations)"
node -e "
const lines = require('fs').readFileSync('$out/metrics.jsonl', 'utf8').trim().split('\n').map(JSON.parse);
for (const l of lines)
  if (l.eval)
    console.log(String(l.step).padStart(4), (l.eval['1']).toFixed(3), 'wall', (l.wall_time ?? 0).toFixed(0) + 's');
"
echo "== wall time of the training run: $((end - start)) s"
