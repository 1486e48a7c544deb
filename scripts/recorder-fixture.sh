#!/usr/bin/env bash
# Run records written by the Python recorder (python/: rlvr_playground.RecordingGRPOTrainer) under real
# TRL, for the viewer's e2e: a random-init Qwen2 with its own byte-level BPE tokenizer
# (src/export/trl/recorder/tiny_model.py) trained by src/export/trl/recorder/train_recorded.py, as
# src/export/trl/recorder-run.test.ts trains it: on one process (3 steps) and under `accelerate launch`
# on two (4 steps, num_iterations = 2). Writes
#   e2e/fixtures/recorder-1proc.rlvr.gz and e2e/fixtures/recorder-2proc.rlvr.gz   (or into the folder $1)
# Needs the Python wheels (scripts/setup-python.sh; exits 3 without them, saying so).
set -euo pipefail
cd "$(dirname "$0")/.."
dest="${1:-e2e/fixtures}"
py=$(bash scripts/setup-python.sh) || {
  code=$?
  echo "recorder-fixture: NO record written: the Python environment is missing (setup-python.sh exited $code)" >&2
  exit "$code"
}
py="$PWD/$(echo "$py" | tail -1)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r python "$work/python-src"
"$py" -m pip install --quiet --no-build-isolation --no-index --no-deps --target "$work/site" "$work/python-src"
export PYTHONPATH="$work/site" HF_HOME="$work/hf-home" HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
  WANDB_MODE=disabled TOKENIZERS_PARALLELISM=false OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
rec=src/export/trl/recorder
"$py" "$rec/tiny_model.py" "$work/model" >"$work/model.log" 2>&1 || { tail -30 "$work/model.log" >&2; exit 1; }
(cd "$work" && "$py" "$OLDPWD/$rec/train_recorded.py" model out1 3 1 >train1.log 2>&1) \
  || { tail -30 "$work/train1.log" >&2; exit 1; }
port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$work" && ACCELERATE_USE_CPU=true "$(dirname "$py")/accelerate" launch --multi_gpu --num_processes 2 \
  --num_machines 1 --mixed_precision no --dynamo_backend no --main_process_port "$port" \
  "$OLDPWD/$rec/train_recorded.py" model out2 4 2 >train2.log 2>&1) \
  || { tail -30 "$work/train2.log" >&2; exit 1; }
mkdir -p "$dest"
cp "$work/out1/run.rlvr.gz" "$dest/recorder-1proc.rlvr.gz"
cp "$work/out2/run.rlvr.gz" "$dest/recorder-2proc.rlvr.gz"
ls -l "$dest"/recorder-*.rlvr.gz
