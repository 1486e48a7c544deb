#!/usr/bin/env bash
# A run record written by real TRL, for the viewer's e2e: exports arithmetic-tiny (rlvr export --format
# hf) and a small TRL project (rlvr export --format trl: 2 prompts × 4 completions per step), trains
# 2 steps with train_grpo.py on one CPU process, and copies its run record to
#   e2e/fixtures/trl-arithmetic-2steps.rlvr.gz   (or the path given as $1)
# Needs the Python wheels (scripts/setup-python.sh; exits 3 without them, saying so).
set -euo pipefail
cd "$(dirname "$0")/.."
dest="${1:-e2e/fixtures/trl-arithmetic-2steps.rlvr.gz}"
py=$(bash scripts/setup-python.sh) || {
  code=$?
  echo "trl-record-fixture: NO record written: the Python environment is missing (setup-python.sh exited $code)" >&2
  exit "$code"
}
py="$PWD/$(echo "$py" | tail -1)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node scripts/rlvr.mjs export --format hf --model public/checkpoints/arithmetic-tiny/manifest.json --out "$work/hf" \
  >/dev/null
node scripts/rlvr.mjs export --format trl --task arithmetic --set prompts_per_step=2 --set num_generations=4 \
  --set minibatches=1 \
  --set num_iterations=1 --set warmup_steps=0 --set learning_rate=0.001 --prompts 16 --out "$work/project" >/dev/null
(cd "$work/project" && HF_HOME="$work/hf-home" HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
  WANDB_MODE=disabled TOKENIZERS_PARALLELISM=false OMP_NUM_THREADS=1 \
  "$py" train_grpo.py --model ../hf --steps 2 --output_dir ../out >"$work/train.log" 2>&1) \
  || { tail -30 "$work/train.log" >&2; exit 1; }
mkdir -p "$(dirname "$dest")"
cp "$work/out/run.rlvr.gz" "$dest"
echo "$dest ($(wc -c <"$dest") bytes)"
