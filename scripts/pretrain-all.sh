#!/usr/bin/env bash
# Reproduces every shipped base checkpoint (public/checkpoints/*). Each command is the exact one
# recorded in that checkpoint's manifest; seeds are fixed, so reruns give the same weights.
set -euo pipefail
cd "$(dirname "$0")/.."
rlvr() { node scripts/rlvr.mjs "$@"; }
rlvr pretrain --task arithmetic --mix \
  '[{"task":"arithmetic","difficulty":{"digits":1,"ops":"+-"}},'\
'{"task":"arithmetic","difficulty":{"digits":2,"ops":"+-"},"weight":2},'\
'{"task":"arithmetic","difficulty":{"digits":3,"ops":"+-"},"weight":2}]' \
  --eval-difficulty '{"digits":3,"ops":"+-"}' --steps 1000 --seed 1 --out public/checkpoints/arithmetic-tiny
rlvr pretrain --task countdown --mix \
  '[{"task":"countdown","difficulty":{"count":2}},{"task":"countdown","difficulty":{"count":3},"weight":2}]' \
  --eval-difficulty '{"count":3}' --steps 5000 --seed 1 --eval-every 1000 --out public/checkpoints/countdown-tiny
rlvr pretrain --model mini --task countdown --mix \
  '[{"task":"countdown","difficulty":{"count":2}},{"task":"countdown","difficulty":{"count":3},"weight":2}]' \
  --eval-difficulty '{"count":3}' --steps 2500 --seed 1 --eval-every 500 --out public/checkpoints/countdown-mini \
  --threads 1
rlvr pretrain --task sat --mix \
  '[{"task":"sat","difficulty":{"n":3,"m":3}},{"task":"sat","difficulty":{"n":4,"m":4}},{"task":"sat"}]' \
  --eval-difficulty '{"n":5,"m":6}' --steps 1000 --seed 1 --out public/checkpoints/sat-tiny
rlvr pretrain --task sudoku --mix \
  '[{"task":"sudoku","difficulty":{"blanks":3}},{"task":"sudoku","difficulty":{"blanks":5}},{"task":"sudoku"}]' \
  --steps 1000 --seed 1 --out public/checkpoints/sudoku-tiny
rlvr pretrain --task sort --mix \
  '[{"task":"sort","difficulty":{"length":3,"maxValue":9}},{"task":"sort","difficulty":{"length":4,"maxValue":9}},'\
'{"task":"sort","difficulty":{"length":5,"maxValue":9}}]' \
  --eval-difficulty '{"length":5,"maxValue":9}' --steps 300 --seed 1 --out public/checkpoints/sort-tiny
rlvr pretrain --task chain --mix \
  '[{"task":"chain","difficulty":{"length":1,"maxOperand":9,"ops":"+-"}},'\
'{"task":"chain","difficulty":{"length":2,"maxOperand":9,"ops":"+-"}},'\
'{"task":"chain","difficulty":{"length":3,"maxOperand":9,"ops":"+-"}},'\
'{"task":"chain","difficulty":{"length":4,"maxOperand":9,"ops":"+-"},"weight":0.25}]' \
  --eval-difficulty '{"length":4,"maxOperand":9,"ops":"+-"}' --steps 2000 --seed 1 --threads 1 --out \
  public/checkpoints/chain-tiny
