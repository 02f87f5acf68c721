#!/usr/bin/env bash
# Issue 19's cross-play of the league's seeds (4 players), after each seed's main is shipped:
#  * team against team: every pair of the given policies (and ppo_4p_signal_seed1, the ppo_4p the leagues started from), 200 matches a pair, seats rotated;
#  * partner play: every ordered pair as one mixed team (A at the lower seat, B at the other) against
#    counter, 200 matches a pair: does seed A's partner read seed B's code?
#  * each further seed's strength against counter (the target that separates them), 500 matches.
# Harness seed 2027 (ppo_4p_league's fresh seed), the PPO evaluation config (round 60 s, 3 points, at most
# 10 rounds).
#   OMP_NUM_THREADS=1 scripts/league_crossplay.sh ppo_4p_league ppo_4p_league_seed1 ppo_4p_league_seed3
set -euo pipefail
(($# >= 2)) || { echo "usage: scripts/league_crossplay.sh MAIN SEED2 [SEED3 ...]" >&2; exit 2; }
common=(--points-to-win 3 --round-seconds 60 --max-rounds 10 --workers 2 --seed 2027 --no-progress)
out=docs/results/league_4p
for policy in "${@:2}"; do
  for opponent in counter; do
    quatro-eval "$policy" "$opponent" --matches 500 "${common[@]}" --probe-matches 0 \
      --out "docs/results/${policy}_vs_${opponent}"
  done
done
quatro-eval "$@" ppo_4p_signal_seed1 --cross-play --matches 200 "${common[@]}" --probe-matches 0 --out "$out/crossplay"
quatro-eval "$@" --partners counter --matches 200 "${common[@]}" --out "$out/partner_play"
