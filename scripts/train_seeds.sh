#!/usr/bin/env bash
# Train several seeds of one config side by side (one process each), for cross-play.
#   scripts/train_seeds.sh CONFIG SECONDS SEED [SEED ...] [-- key=value ...]
# CONFIG is a shipped config's name (smoke, ppo_4p, ...) or a YAML path, as for quatro-train --config.
# Each run gets SIGINT after SECONDS (the trainer then writes latest.pt and policy.pt and exits 0), and
# SIGKILL 60 s later if it is still saving; so a fixed wall-clock budget ends with usable checkpoints.
# A seed counts as done only if its trainer exited 0 and wrote latest.pt and policy.pt in this run;
# otherwise this script exits 1 and names the seed and its log (train_<run_name>_seed<S>.log, here).
# Runs go to <out_dir>/<run_name>_seed<S>/ (the config's out_dir and run_name, after the overrides).
set -euo pipefail
usage="usage: scripts/train_seeds.sh CONFIG SECONDS SEED [SEED ...] [-- key=value ...]"
if [[ ${1:-} == -h || ${1:-} == --help ]]; then echo "$usage"; exit 0; fi
if (($# < 3)); then echo "$usage" >&2; exit 2; fi
config=$1 seconds=$2
shift 2
# a duration as timeout(1) reads it (90, 1.5h, 30m), not zero (timeout would never stop the run)
if ! [[ $seconds =~ ^[0-9]*\.?[0-9]+[smhd]?$ && $seconds =~ [1-9] ]]; then
  echo "train_seeds.sh: SECONDS: a duration > 0 (90, 30m, 1.5h), got '$seconds'" >&2; exit 2
fi
seeds=()
while [[ $# -gt 0 && $1 != "--" ]]; do
  [[ $1 =~ ^[0-9]+$ ]] || { echo "train_seeds.sh: SEED: a whole number >= 0, got '$1'" >&2; exit 2; }
  seeds+=("$1"); shift
done
[[ $# -gt 0 ]] && shift
((${#seeds[@]} > 0)) || { echo "$usage" >&2; exit 2; }

# The config's run_name, then each seed's run folder, as the trainer will resolve them (a config name or
# path, the overrides); a bad config or override is refused here, in one line, before any run starts.
mapfile -t resolved < <(python - "$config" "${seeds[@]}" -- "$@" <<'PY' || echo "!error"
import sys
from pathlib import Path

from baselines.config import load_config
from quatro_env.common.cli import one_line_error

config, rest = sys.argv[1], sys.argv[2:]
cut = rest.index("--")
seeds, extra = rest[:cut], rest[cut + 1 :]
try:
    name = load_config(config, extra).run_name
    print(name)
    for seed in seeds:
        cfg = load_config(config, [*extra, f"seed={seed}", f"run_name={name}_seed{seed}"])
        print(Path(cfg.out_dir) / cfg.run_name)
except ValueError as exc:
    print(f"train_seeds.sh: {one_line_error(exc)}", file=sys.stderr)
    sys.exit(2)
PY
)
if ((${#resolved[@]} == 0)) || [[ ${resolved[-1]} == "!error" ]]; then exit 2; fi
name=${resolved[0]}
dirs=("${resolved[@]:1}")
if (($(printf '%s\n' "${dirs[@]}" | sort -u | wc -l) != ${#dirs[@]})); then
  echo "train_seeds.sh: SEED: each seed once (two runs would share a folder)" >&2; exit 2
fi

marker=$(mktemp)  # files older than this are an earlier run's
trap 'rm -f "$marker"' EXIT
pids=()
for s in "${seeds[@]}"; do
  # --preserve-status: the trainer's own exit status (0 once it has saved after the SIGINT), not
  # timeout's 124; -k 60: SIGKILL (status 137) if it is still running a minute after the SIGINT
  timeout --preserve-status -k 60 -s INT "$seconds" python -m baselines.ppo --config "$config" "$@" \
    seed="$s" run_name="${name}_seed$s" progress_bar=false >"train_${name}_seed$s.log" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
  s=${seeds[$i]} dir=${dirs[$i]} log="train_${name}_seed${seeds[$i]}.log"
  rc=0; wait "${pids[$i]}" || rc=$?
  if ((rc != 0)); then
    echo "train_seeds.sh: seed $s failed: the trainer exited with $rc (see $log)" >&2; status=1
  elif [[ ! $dir/latest.pt -nt $marker || ! $dir/policy.pt -nt $marker ]]; then
    echo "train_seeds.sh: seed $s failed: no latest.pt and policy.pt written in $dir (see $log)" >&2
    status=1
  else
    echo "seed $s: $dir/latest.pt, $dir/policy.pt"
  fi
done
exit "$status"
