#!/usr/bin/env bash
# The GPU checks of issues 16 and 17, prepared for a session that is lent a GPU machine (one that reaches
# no package registry; docs/batched.md, "On a GPU").
#
# Here, once: `bash scripts/device_check.sh --wheels` downloads what that machine lacks of the project's
# needs (pydantic, gymnasium, pettingzoo and their own; CPython 3.12, or DEVICE_PYTHON=3.x) into .whl/,
# git-ignored through .git/info/exclude. There, with the device tool, carry [".whl"], timeout_s 590:
#
#   bash scripts/device_check.sh engine   # issue 16: the CUDA kernels against the reference and the CPU
#                                         # loops on the real GPU, then scripts/bench.py on cuda (4 players,
#                                         # 4,096 to 262,144 tables: agent-steps/s, launches per tick;
#                                         # the target is >= 100M agent-steps/s at >= 65,536 tables),
#                                         # then scripts/gpu_launch_times.py (host vs device per launch)
#   bash scripts/device_check.sh train    # issue 17, item 4: the trainer end to end on the GPU (its test),
#                                         # then scripts/bench_train.py with network and tables on cuda
#
# Each part fits one call (under 10 minutes, the numba compilations included: the CPU loops ~2 min, the
# kernels ~1 min, once per machine). Every step runs under its own time limit; its log and figures go to
# $OUT (default /tmp/device_check), and a summary line per step is printed at the end: summary.txt is
# started afresh by each run, and the script exits 1 when any step failed (or ran out of time).
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--wheels" ]; then
    exclude=$(git rev-parse --git-path info/exclude)
    grep -qx '/.whl/' "$exclude" 2>/dev/null || echo '/.whl/' >> "$exclude"
    rm -rf .whl
    python3 -m pip download -q --only-binary=:all: --python-version "${DEVICE_PYTHON:-3.12}" --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        -d .whl "pydantic>=2.5,<3" "gymnasium>=1.0,<2" "pettingzoo>=1.24,<2" || exit 1
    rm -f .whl/numpy-*.whl  # that machine's numba is built against its own numpy: keep it
    ls .whl && du -sh .whl
    exit 0
fi
part=${1:-engine}
case "$part" in engine | train) ;; *) echo "usage: $0 --wheels | engine | train" >&2; exit 2 ;; esac

out=${OUT:-/tmp/device_check}
mkdir -p "$out"
: > "$out/summary.txt"  # this run's steps only: an earlier run's lines must not read as current
failed=0
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    .whl/*.whl || { echo "no wheels: run 'bash scripts/device_check.sh --wheels' here first" >&2; exit 1; }
# That image pairs numba-cuda 0.30 with numpy 2.5, which removed np.row_stack; numba-cuda registers an
# overload of it at its first compilation and fails (NVIDIA/numba-cuda#907; seen there 2026-12-04). Its
# numba is built against that numpy, so rather than carry another one, give numba-cuda the alias back.
cat > /tmp/site/sitecustomize.py <<'PY'
import numpy
if not hasattr(numpy, "row_stack"):
    numpy.row_stack = numpy.vstack
PY
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=4

step() {  # step NAME SECONDS COMMAND...: run it, keep its log, note how it ended
    local name=$1 limit=$2
    shift 2
    echo "=== $name (limit ${limit}s)"
    local start=$SECONDS
    timeout "$limit" "$@" > "$out/$name.log" 2>&1
    local rc=$?
    tail -n 25 "$out/$name.log"
    echo "=== $name: rc=$rc in $((SECONDS - start)) s" | tee -a "$out/summary.txt"
    [ "$rc" -eq 0 ] || failed=$((failed + 1))  # 124: out of time
}

step machine 40 bash -c 'nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv;
    python3 -c "import torch, numba, numpy; from numba import cuda;
print(\"torch\", torch.__version__, \"numba\", numba.__version__, \"numpy\", numpy.__version__); cuda.detect()"'
if [ "$part" = engine ]; then
    step engine_tests 330 python3 -m pytest -q -p no:cacheprovider -rs \
        tests/batched/test_cuda.py::test_cuda_kernels_match_reference_on_gpu \
        tests/batched/test_batched.py::test_cuda_matches_cpu_and_reference
    step engine_bench 180 python3 scripts/bench.py --devices cuda --players 4 --batches 4096,65536,262144,1048576 \
        --seconds 3 --no-peers --json "$out/bench_cuda.json"
    step engine_launches 120 python3 scripts/gpu_launch_times.py --batches 4096,262144 --ticks 50 \
        --json "$out/launch_times.json"
else
    step train_test 300 python3 -m pytest -q -p no:cacheprovider -rs tests/baselines/test_fast_gpu.py
    step train_bench 200 python3 scripts/bench_train.py --config configs/ppo_4p.yaml --updates 2 \
        --json "$out/bench_train_cuda.json" device=cuda env_device=cuda
fi
cat "$out/summary.txt"
if [ "$failed" -gt 0 ]; then
    echo "device_check: $failed step(s) failed" | tee -a "$out/summary.txt" >&2
    exit 1
fi
