#!/usr/bin/env bash
# A real TRL 1.13 GRPOTrainer run on CPU, written to OUTDIR: completions/completions_NNNNN.parquet per step
# and checkpoint-N/trainer_state.json (scripts/trl_run_fixture.py says what model and rewards).
# Uses the venv of scripts/setup-python.sh; exits 3 (its code) when the local wheels are missing.
# Usage: bash scripts/trl-run-fixture.sh OUTDIR [--max-steps N] [--seed S] [--format-only] [--learning-rate LR]
set -euo pipefail
if [ $# -lt 1 ]; then echo "usage: $0 OUTDIR [--max-steps N] [--seed S]" >&2; exit 2; fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
py="$(bash "$here/setup-python.sh" | tail -n 1)" || exit $?
case "$py" in /*) ;; *) py="$root/$py" ;; esac
outdir="$1"
shift
mkdir -p "$outdir"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 WANDB_MODE=disabled WANDB_DISABLED=true
export OMP_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
# Caches go to a folder of their own, not into the run's folder.
if [ -z "${HF_HOME:-}" ]; then
  HF_HOME="$(mktemp -d)"
  trap 'rm -rf "$HF_HOME"' EXIT
fi
export HF_HOME
"$py" "$here/trl_run_fixture.py" "$outdir" "$@"
