#!/usr/bin/env bash
# Records the run records the playground ships (public/records/), and their list
# (public/records/index.json, written by scripts/records-index.mjs). Resumable: a record that exists is
# skipped (delete it to record it again).
#
#   bash scripts/record-lessons.sh              the short demo record and every lesson
#   bash scripts/record-lessons.sh demo         only the demo record (~1 min)
#   bash scripts/record-lessons.sh recipes [T…] each family's recipe run (or only those named; 5-20 min each)
#   bash scripts/record-lessons.sh LESSON_ID    only that lesson (every arm, every seed)
#
# 1. The demo record: `rlvr train --record` of 30 steps of SAT with the GRPO defaults, seed 0, with the
#    weights after step 30 (so the page can continue training from it).
# 1b. Each family's recipe run: `rlvr train --task T --preset grpo --steps 200 --seed 2 --record`, the
#    checkpoint's recipe and nothing else (the first seed of docs/measured.md's recipe table,
#    scripts/measure-recipes.sh), with the weights after step 200; shipped thinned to the rollouts of
#    every 50th step (64 prompts a step make every step's rollouts about 8 times a lesson arm's) as
#    public/records/recipes/T-grpo-200-seed2.rlvr.gz.
# 2. Every lesson: `rlvr lesson run ID --seed S` for each seed it is measured on (the lesson's
#    seeds in src/lessons/: 1 2 3 unless it names others), which writes one record per arm
#    beside its cached seed result (runs/lessons/ID/); the records are copied to
#    public/records/lessons/ID/seed-S/ARM.rlvr.gz, thinned (`rlvr record thin`): the seed the
#    lesson opens with (its first) keeps the rollouts of every 15th step, the other seeds
#    those of the first and last step; every step's metrics and the evaluations are kept (a 150-step
#    arm with every rollout is about 3.6 MB; thinned, about 0.3 MB and 0.08 MB). Then
#    `rlvr lesson run ID --seeds ...` reuses the cached seeds and writes measured.json, so the lesson's
#    recorded numbers, its verdict and its records come from the same runs. A full lesson takes about an
#    hour on a two-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
RLVR="node scripts/rlvr.mjs"
OUT=public/records
mkdir -p "$OUT"
only="${1:-all}"

if [ "$only" = all ] || [ "$only" = demo ]; then
  f="$OUT/sat-grpo-30.rlvr.gz"
  if [ -e "$f" ]; then
    echo "# $f exists: skipped"
  else
    $RLVR train --task sat --steps 30 --seed 0 --out runs/records/sat-grpo-30 --record "$f" --record-checkpoints 30
  fi
fi

if [ "$only" = recipes ]; then
  shift
  tasks=("$@"); [ ${#tasks[@]} -gt 0 ] || tasks=(sat sudoku arithmetic countdown chain sort)
  mkdir -p "$OUT/recipes" runs/records
  for t in "${tasks[@]}"; do
    f="$OUT/recipes/$t-grpo-200-seed2.rlvr.gz"
    if [ -e "$f" ]; then echo "# $f exists: skipped"; continue; fi
    full="runs/records/recipe-$t-grpo-200-seed2.rlvr.gz"
    if [ ! -e "$full" ]; then
      # Several of these may run at once (one family each): a family another one is recording is skipped.
      if ! mkdir "runs/records/recipe-$t.lock" 2>/dev/null; then
        echo "# $t: another run is recording it, skipped"
        continue
      fi
      $RLVR train --task "$t" --preset grpo --steps 200 --seed 2 --out "runs/records/recipe-$t" \
        --record "$full" --record-checkpoints 200
      rmdir "runs/records/recipe-$t.lock"
    fi
    $RLVR record thin "$full" --out "$f" --rollouts-every 50 >/dev/null
  done
  node scripts/records-index.mjs
  exit 0
fi

if [ "$only" != demo ]; then
  # id<TAB>seeds (space-separated)<TAB>arm labels (|-separated), from the lesson table (its seeds are
  # fixed there, with its rule, before it is measured).
  node --input-type=module --import tsx -e '
    const { lessons, lessonSeeds } = await import("./src/lessons/index.ts");
    for (const l of lessons)
      console.log([l.id, lessonSeeds(l).join(" "), l.runs.map((r) => r.label).join("|")].join("\t"));
  ' | while IFS=$'\t' read -r id seeds labels; do
    if [ "$only" != all ] && [ "$only" != "$id" ]; then continue; fi
    IFS='|' read -r -a arms <<<"$labels"
    first_seed=${seeds%% *}
    for seed in $seeds; do
      every=150
      [ "$seed" = "$first_seed" ] && every=15
      dir="$OUT/lessons/$id/seed-$seed"
      missing=0
      for arm in "${arms[@]}"; do
        [ -e "$dir/$(echo "$arm" | sed 's/[^A-Za-z0-9_.+=-]\+/_/g').rlvr.gz" ] || missing=1
      done
      if [ $missing = 0 ]; then echo "# $dir: every arm recorded, skipped"; continue; fi
      # A seed measured before runs were recorded has a cached result but no records: measure it again.
      for cached in runs/lessons/"$id"/*-seed"$seed".json; do
        [ -e "$cached" ] || continue
        ls "${cached%.json}"-*.rlvr.gz >/dev/null 2>&1 || rm -f "$cached"
      done
      $RLVR lesson run "$id" --seed "$seed"
      mkdir -p "$dir"
      for arm in "${arms[@]}"; do
        safe=$(echo "$arm" | sed 's/[^A-Za-z0-9_.+=-]\+/_/g')
        src=$(ls -t runs/lessons/"$id"/*-seed"$seed"-"$safe".rlvr.gz | head -1)
        $RLVR record thin "$src" --out "$dir/$safe.rlvr.gz" --rollouts-every "$every" >/dev/null
      done
    done
    # The mean over the seeds (each reused from its cache) into measured.json.
    $RLVR lesson run "$id" --seeds "$(echo "$seeds" | tr ' ' ,)"
  done
fi

node scripts/records-index.mjs
