#!/usr/bin/env bash
# Issue 19's measurement of a trained main, every number of its targets in one run:
#  * 500 matches against each target opponent (seats rotated, a fresh harness seed, default 2027),
#    the PPO evaluation config (round 60 s, 3 points, at most 10 rounds): docs/results/<POLICY>_vs_<OPP>/;
#  * secrecy on its 500 matches against counter (Eve/Bob decoders on all of them);
#  * its row of the secrecy frontier (200 matches against counter, seed 0, as every other policy);
#  * exploitability at issue 18's budget: a best response trained 655,360 agent-steps from the
#    policy's own weights, then 300 matches (docs/results/secrecy/exploit_<POLICY>.json).
#   OMP_NUM_THREADS=1 scripts/evaluate_main.sh ppo_4p_league [SEED]
set -euo pipefail
policy=${1:?usage: scripts/evaluate_main.sh POLICY [SEED]}
seed=${2:-2027}
common=(--matches 500 --points-to-win 3 --round-seconds 60 --max-rounds 10 --workers 2 --seed "$seed" --no-progress)
for opponent in honest decoy eavesdropper cover ppo_4p_signal_seed1; do  # the ppo_4p of #19's filing
  quatro-eval "$policy" "$opponent" "${common[@]}" --probe-matches 0 --out "docs/results/${policy}_vs_${opponent}"
done
quatro-eval "$policy" counter "${common[@]}" --probe-matches 500 --decoders --out "docs/results/${policy}_vs_counter"
python scripts/secrecy_frontier.py --matches 200 --only "$policy"
quatro-exploit "$policy" --steps 655360 --eval-every 5 --eval-matches 40 --final-matches 300 --workers 2 \
  --out docs/results/secrecy
