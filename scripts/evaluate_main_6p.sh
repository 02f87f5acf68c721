#!/usr/bin/env bash
# A 6-player main (issue 19: ppo_6p_league) measured as ppo_6p was (docs/ppo.md, "6 players"): against
# two teams of one bot (chance ~1/3), 300 matches each, harness seed 0, seats rotated, the PPO evaluation
# config; then against two teams of ppo_6p (chance 1/3 if it is no better than ppo_6p).
#   OMP_NUM_THREADS=1 scripts/evaluate_main_6p.sh ppo_6p_league
set -euo pipefail
policy=${1:?usage: scripts/evaluate_main_6p.sh POLICY}
common=(--players 6 --matches 300 --points-to-win 3 --round-seconds 60 --max-rounds 10 --workers 2 --no-progress)
for opponent in honest counter ppo_6p; do
  quatro-eval "$policy" "$opponent" "$opponent" "${common[@]}" --probe-matches 50 \
    --out "docs/results/${policy}_vs_${opponent}"
done
