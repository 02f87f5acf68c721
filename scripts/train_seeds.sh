#!/usr/bin/env bash
# Train several seeds of one config side by side (one process each), for cross-play.
#   scripts/train_seeds.sh CONFIG SECONDS SEED [SEED ...] -- [key=value ...]
# Each run gets SIGINT after SECONDS (the trainer then writes latest.pt and policy.pt and exits),
# so a fixed wall-clock budget ends with usable checkpoints. Runs go to runs/<run_name>_seed<S>/.
set -euo pipefail
config=$1 seconds=$2
shift 2
seeds=()
while [[ $# -gt 0 && $1 != "--" ]]; do seeds+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
name=$(python -c "import yaml,sys; print(yaml.safe_load(open(sys.argv[1]))['run_name'])" "$config")
pids=()
for s in "${seeds[@]}"; do
  timeout -s INT "$seconds" python -m baselines.ppo --config "$config" seed="$s" \
    run_name="${name}_seed$s" progress_bar=false "$@" >"train_${name}_seed$s.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do
  rc=0; wait "$p" || rc=$?
  [[ $rc == 0 || $rc == 124 ]] || status=$rc  # 124: stopped by the time budget, checkpoint written
done
exit "$status"
