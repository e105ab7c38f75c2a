#!/usr/bin/env bash
# Scaling of a sweep over MPI processes: the same sweep with 1 and with N
# processes of rlcost-sweep-mpi (Open MPI's mpirun, one thread per process),
# wall time and points per second for each, and whether the rows agree.
# Usage: bench/mpi_scaling.sh [BUILD_DIR] [MAX_PROCESSES] [analytic|simulated]
# The default sweep is simulated (20 steps, 64 points of the built-in scenario),
# where a point costs tens of milliseconds and the exchange of rows is
# negligible; "analytic" sweeps 6,000 closed-form points, where mpirun's own
# start-up (~0.3 s) is a large part of the time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
max=${2:-2}
kind=${3:-simulated}
command -v mpirun >/dev/null || { echo "mpirun is missing: scripts/install-deps.sh installs Open MPI"; exit 1; }
[[ -x $build/rlcost-sweep-mpi ]] || { echo "$build/rlcost-sweep-mpi is not built (Open MPI missing at configure time)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ $kind == analytic ]]; then
  args=(--vary algorithm.group_size=2..16 --vary algorithm.prompts_per_step=32..431:1 --vary model=qwen3-8b)
else
  args=(--vary algorithm.group_size=2,4,8,16 --vary algorithm.prompts_per_step=32..512:32
        --simulate --steps 20 --seed 1)
fi
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_btl=self,vader
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
base=""
for ((np = 1; np <= max; ++np)); do
  start=$(date +%s.%N)
  mpirun --allow-run-as-root --oversubscribe -np "$np" "$build/rlcost-sweep-mpi" "${args[@]}" --jobs 1 \
    --jsonl "$tmp/rows-$np.jsonl" -o "$tmp/sweep-$np.db" >"$tmp/out-$np.txt"
  end=$(date +%s.%N)
  points=$(wc -l <"$tmp/rows-$np.jsonl")
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
  rate=$(awk -v p="$points" -v w="$wall" 'BEGIN { print p / w }')
  [[ -z $base ]] && base=$rate
  same="same rows as 1 process"
  cmp -s "$tmp/rows-1.jsonl" "$tmp/rows-$np.jsonl" || same="ROWS DIFFER from 1 process"
  printf '%d process(es): %d points in %.2f s wall = %.1f points/s, speed-up %.2fx; %s\n' \
    "$np" "$points" "$wall" "$rate" "$(awk -v r="$rate" -v b="$base" 'BEGIN { print r / b }')" "$same"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
