#!/usr/bin/env bash
# Trains every shipped preset a few steps with a fixed seed and prints the sha256 of each resulting
# model.safetensors: run it on two checkouts (before and after a refactor) and diff the output to show
# the same weights come out byte for byte.
#   bash scripts/preset-weights.sh [REPO_ROOT] [STEPS]      (REPO_ROOT defaults to this checkout)
# num_iterations=2 and minibatches=2 make the ratio leave 1, so every objective's clip or gate acts.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
steps="${2:-2}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cd "$root"
presets=$(node scripts/rlvr.mjs train --help | sed -n 's/^  --preset P *//p' | tr -d ' ' | tr '|' ' ')
for p in $presets; do
  RLVR_THREADS=1 node scripts/rlvr.mjs train --preset "$p" --steps "$steps" --seed 3 --out "$out/$p" --rollouts none \
    --set eval_every=0 --set prompts_per_step=4 --set num_generations=4 --set num_iterations=2 --set minibatches=2 \
    >/dev/null 2>&1
  echo "$p $(sha256sum "$out/$p/model.safetensors" | cut -d' ' -f1)"
done
